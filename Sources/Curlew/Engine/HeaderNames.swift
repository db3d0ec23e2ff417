import HTTPTypes

/// Field names that nearly every response carries, matched from raw header bytes without
/// building a String or validating the token again.
enum HeaderNames {
    /// The fields the transfer itself reads, told apart while parsing so that it never has to
    /// look them up in the finished head.
    enum Role {
        case other, contentLength, contentEncoding, location
    }

    private static let common: [(bytes: [UInt8], name: HTTPField.Name, role: Role)] = [
        (HTTPField.Name.contentType, Role.other), (.contentLength, .contentLength), (.date, .other),
        (.server, .other), (.connection, .other), (.lastModified, .other), (.eTag, .other),
        (.acceptRanges, .other), (.contentEncoding, .contentEncoding), (.location, .location),
        (.setCookie, .other), (.cacheControl, .other), (.transferEncoding, .other), (.vary, .other),
        (.expires, .other),
    ].map { (Array($0.0.canonicalName.utf8), $0.0, $0.1) }

    /// The name for `bytes`, from the common ones when it is one of them, and its role; nil
    /// when `bytes` is not a valid field name.
    static func name(_ bytes: UnsafeRawBufferPointer) -> (name: HTTPField.Name, role: Role)? {
        for entry in common where entry.bytes.count == bytes.count {
            if equalsIgnoringASCIICase(bytes, entry.bytes) { return (entry.name, entry.role) }
        }
        return HTTPField.Name(String(decoding: bytes, as: UTF8.self)).map { ($0, .other) }
    }

    /// Compares with `lowercase`, which is already lowercased.
    private static func equalsIgnoringASCIICase(_ bytes: UnsafeRawBufferPointer, _ lowercase: [UInt8]) -> Bool {
        for index in 0..<bytes.count {
            var byte = bytes[index]
            if byte >= 0x41 && byte <= 0x5A { byte |= 0x20 }
            if byte != lowercase[index] { return false }
        }
        return true
    }
}
