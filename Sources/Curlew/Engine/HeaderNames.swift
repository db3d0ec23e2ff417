import HTTPTypes

/// Field names that nearly every response carries, matched from raw header bytes without
/// building a String or validating the token again.
enum HeaderNames {
    /// The fields the transfer itself reads, told apart while a head's lines arrive so that
    /// it never has to build the head to look for them.
    enum Role {
        case other, contentLength, contentEncoding, location, transferEncoding, setCookie, contentType
    }

    private static let common: [(bytes: [UInt8], name: HTTPField.Name)] = [
        HTTPField.Name.contentType, .contentLength, .date, .server, .connection, .lastModified, .eTag,
        .acceptRanges, .contentEncoding, .location, .setCookie, .cacheControl, .transferEncoding, .vary, .expires,
    ].map { (Array($0.canonicalName.utf8), $0) }

    /// The name for `bytes`, from the common ones when it is one of them; nil when `bytes` is
    /// not a valid field name.
    static func name(_ bytes: UnsafeRawBufferPointer) -> HTTPField.Name? {
        for entry in common where entry.bytes.count == bytes.count {
            if equalsIgnoringASCIICase(bytes, entry.bytes) { return entry.name }
        }
        return HTTPField.Name(String(decoding: bytes, as: UTF8.self))
    }

    private static let contentLength = Array("content-length".utf8)
    private static let contentEncoding = Array("content-encoding".utf8)
    private static let location = Array("location".utf8)
    private static let transferEncoding = Array("transfer-encoding".utf8)
    private static let setCookie = Array("set-cookie".utf8)
    private static let contentType = Array("content-type".utf8)

    /// The role of the field named `bytes`: told apart by length first, so that most names
    /// cost one comparison or none.
    static func role(_ bytes: UnsafeRawBufferPointer) -> Role {
        switch bytes.count {
        case 8: return equalsIgnoringASCIICase(bytes, location) ? .location : .other
        case 10: return equalsIgnoringASCIICase(bytes, setCookie) ? .setCookie : .other
        case 12: return equalsIgnoringASCIICase(bytes, contentType) ? .contentType : .other
        case 14: return equalsIgnoringASCIICase(bytes, contentLength) ? .contentLength : .other
        case 16: return equalsIgnoringASCIICase(bytes, contentEncoding) ? .contentEncoding : .other
        case 17: return equalsIgnoringASCIICase(bytes, transferEncoding) ? .transferEncoding : .other
        default: return .other
        }
    }

    /// Compares with `lowercase`, which is already lowercased and as long as `bytes`.
    private static func equalsIgnoringASCIICase(_ bytes: UnsafeRawBufferPointer, _ lowercase: [UInt8]) -> Bool {
        for index in 0..<bytes.count {
            var byte = bytes[index]
            if byte >= 0x41 && byte <= 0x5A { byte |= 0x20 }
            if byte != lowercase[index] { return false }
        }
        return true
    }
}
