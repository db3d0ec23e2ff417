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

    private static let contentLength = LowercaseFieldName("content-length")
    private static let contentEncoding = LowercaseFieldName("content-encoding")
    private static let location = LowercaseFieldName("location")
    private static let transferEncoding = LowercaseFieldName("transfer-encoding")
    private static let setCookie = LowercaseFieldName("set-cookie")
    private static let contentType = LowercaseFieldName("content-type")

    /// The role of the field named `bytes`: told apart by length first, so that most names
    /// cost one comparison or none, and that one compares eight bytes at a time.
    static func role(_ bytes: UnsafeRawBufferPointer) -> Role {
        guard let base = bytes.baseAddress else { return .other }
        switch bytes.count {
        case 8: return location.matches(base) ? .location : .other
        case 10: return setCookie.matches(base) ? .setCookie : .other
        case 12: return contentType.matches(base) ? .contentType : .other
        case 14: return contentLength.matches(base) ? .contentLength : .other
        case 16: return contentEncoding.matches(base) ? .contentEncoding : .other
        case 17: return transferEncoding.matches(base) ? .transferEncoding : .other
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
