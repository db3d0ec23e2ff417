import HTTPTypes

/// Field names that nearly every response carries, matched from raw header bytes without
/// building a String or validating the token again.
enum HeaderNames {
    private static let common: [(bytes: [UInt8], name: HTTPField.Name)] = [
        HTTPField.Name.contentType, .contentLength, .date, .server, .connection, .lastModified,
        .eTag, .acceptRanges, .contentEncoding, .location, .setCookie, .cacheControl,
        .transferEncoding, .vary, .expires,
    ].map { (Array($0.canonicalName.utf8), $0) }

    /// The name for `bytes`, from the common ones when it is one of them.
    static func name(_ bytes: UnsafeRawBufferPointer) -> HTTPField.Name? {
        for entry in common where entry.bytes.count == bytes.count {
            if equalsIgnoringASCIICase(bytes, entry.bytes) { return entry.name }
        }
        return HTTPField.Name(String(decoding: bytes, as: UTF8.self))
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
