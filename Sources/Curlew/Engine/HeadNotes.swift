/// What the transfer reads of a head, noted while its fields are parsed: whether it has the
/// fields that need a closer look, where its `Content-Type` is, and the value of a single
/// `Content-Length`.
struct HeadNotes {
    private(set) var hasLocation = false
    private(set) var hasContentEncoding = false
    private(set) var hasTransferEncoding = false
    /// Whether a `Transfer-Encoding` line names more than `chunked` (a `gzip`, say), which
    /// libcurl passes on still coded when its content decoding is off (see ``ContentDecoder``).
    private(set) var hasTransferCoding = false
    private(set) var hasSetCookie = false
    /// How many `Content-Type` lines there are, and where the last one starts in the head's bytes.
    private(set) var contentTypeCount = 0
    private(set) var contentTypeLine: Int?
    private var contentLengthCount = 0
    private var contentLengthValue: Int?
    /// A `Content-Length` that is not a number, or repeats with another value (RFC 9112 §6.3).
    private(set) var hasInvalidContentLength = false

    /// The declared body length; nil when absent or invalid.
    var contentLength: Int? { hasInvalidContentLength ? nil : contentLengthValue }

    /// Notes the field line that starts at offset `lineStart` of the head's bytes (see
    /// ``RawResponseHead/bytes``).
    mutating func note(_ role: HeaderNames.Role, value: UnsafeRawBufferPointer, lineStart: Int) {
        switch role {
        case .location: hasLocation = true
        case .contentEncoding: hasContentEncoding = true
        case .transferEncoding:
            hasTransferEncoding = true
            if !Self.isChunked(value) { hasTransferCoding = true }
        case .setCookie: hasSetCookie = true
        case .contentType:
            contentTypeCount += 1
            contentTypeLine = lineStart
        case .contentLength:
            contentLengthCount += 1
            let parsed = Self.decimal(value)
            if parsed == nil || (contentLengthCount > 1 && parsed != contentLengthValue) { hasInvalidContentLength = true }
            contentLengthValue = parsed
        case .other: break
        }
    }

    /// Whether `bytes` is `chunked` in any case, with blanks around it.
    private static func isChunked(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var start = 0
        var end = bytes.count
        while start < end && (bytes[start] == 0x20 || bytes[start] == 0x09) { start += 1 }
        while end > start && (bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09) { end -= 1 }
        let word = Array("chunked".utf8)
        guard end - start == word.count else { return false }
        for index in 0..<word.count where bytes[start + index] | 0x20 != word[index] { return false }
        return true
    }

    /// The non-negative decimal number that is all of `bytes` (trailing blanks allowed).
    private static func decimal(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var end = bytes.count
        while end > 0 && (bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09) { end -= 1 }
        guard end > 0, end <= 18 else { return nil }
        var value = 0
        for index in 0..<end {
            let digit = Int(bytes[index]) - 0x30
            guard digit >= 0 && digit <= 9 else { return nil }
            value = value * 10 + digit
        }
        return value
    }
}
