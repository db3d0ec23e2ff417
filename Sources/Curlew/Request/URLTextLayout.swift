/// Where the parts of an absolute URL's text lie, found in one pass over its bytes: the scheme
/// before the first `:`, and, when `//` follows, the authority up to the next `/`, `?` or `#`,
/// whose host starts after its last `@` (the user information before it).
///
/// Shared by the request check (``Foundation/URL/validatedForTransfer()``) and the curl
/// thread's ``HopURLFacts``, so that both read a URL the same way and neither asks `URL`'s
/// getters, which parse the text again each time.
struct URLTextLayout {
    /// The index of the first `:`, the end of the scheme.
    let schemeEnd: Int
    /// The authority's bytes; nil when no `//` follows the scheme.
    let authority: Range<Int>?
    /// Where the host starts: after the authority's last `@`, else at the authority's start.
    let hostStart: Int

    /// Nil when the text has no `:`.
    init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        schemeEnd = colon
        let start = colon + 1
        guard start + 1 < bytes.count, bytes[start] == UInt8(ascii: "/"), bytes[start + 1] == UInt8(ascii: "/") else {
            authority = nil
            hostStart = bytes.count
            return
        }
        var end = start + 2
        var host = end
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            end += 1
            if byte == UInt8(ascii: "@") { host = end }
        }
        authority = (start + 2)..<end
        hostStart = host
    }

    /// Whether `text` starts with a scheme and its `:` (RFC 3986: a letter, then letters, digits,
    /// `+`, `-` or `.`), which is when Foundation's `URL(string:)` gives a URL a non-empty
    /// scheme (it reads `":x"` as scheme `""`): asked of the bytes, because `URL.scheme` parses
    /// the URL's text again.
    static func startsWithScheme(_ text: String) -> Bool {
        if let answer = text.utf8.withContiguousStorageIfAvailable(startsWithScheme) { return answer }
        return startsWithScheme(Array(text.utf8))
    }

    private static func startsWithScheme<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes) -> Bool where Bytes.Index == Int {
        for index in bytes.indices {
            let byte = bytes[index]
            if byte == UInt8(ascii: ":") { return index != bytes.startIndex }
            guard isSchemeByte(byte, first: index == bytes.startIndex) else { return false }
        }
        return false
    }

    /// Whether `byte` may stand in a scheme (RFC 3986 §3.1): a letter first, then letters,
    /// digits, `+`, `-` or `.`.
    static func isSchemeByte(_ byte: UInt8, first: Bool) -> Bool {
        let folded = byte | 0x20
        let isLetter = folded >= UInt8(ascii: "a") && folded <= UInt8(ascii: "z")
        if first || isLetter { return isLetter }
        return (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "+")
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    /// Whether the authority holds user information (an `@`).
    var hasUserInfo: Bool {
        guard let authority else { return false }
        return hostStart != authority.lowerBound
    }

    /// Whether `bytes` spell `lowercase` (given in lower case), ASCII letters in either case.
    static func equalsIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        let expected = lowercase.utf8Start
        for index in 0..<bytes.count {
            let byte = bytes[index]
            if (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) != expected[index] { return false }
        }
        return true
    }
}

extension URLTextLayout {
    /// Whether `bytes` are a plain http or https URL: `http://` or `https://` in lower case; a
    /// host of letters, digits, `-`, `.`, `_` and `~`; an optional port of one to five digits;
    /// then, after a `/` or `?`, only RFC 3986's unreserved and sub-delimiter characters, `:`,
    /// `@`, `/`, `?` and well-formed percent escapes. No user information, IP literal, fragment,
    /// space or other byte, and at most `OutgoingRequest.maximumURLLength` bytes.
    ///
    /// Foundation's `URL(string:)` parses every such text to a URL whose `absoluteString` is
    /// the text (PlainURLTextTests checks it over generated URLs), and ``URL/transferProblem(of:)``
    /// finds nothing in it: a request made from one can keep the text and parse it only when
    /// someone reads its ``OutgoingRequest/url``.
    static func isPlainHTTPURL(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count <= OutgoingRequest.maximumURLLength else { return false }
        var index: Int
        if startsWith(bytes, "http://") {
            index = 7
        } else if startsWith(bytes, "https://") {
            index = 8
        } else {
            return false
        }
        let hostStart = index
        while index < bytes.count, PlainURLBytes.host.contains(bytes[index]) { index += 1 }
        guard index > hostStart else { return false }
        if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
            index += 1
            let portStart = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
            guard index > portStart, index - portStart <= 5 else { return false }
        }
        guard index == bytes.count || bytes[index] == UInt8(ascii: "/") || bytes[index] == UInt8(ascii: "?") else {
            return false
        }
        let pathAndQuery = PlainURLBytes.pathAndQuery
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, isHexDigit(bytes[index + 1]), isHexDigit(bytes[index + 2]) else { return false }
                index += 3
            } else {
                guard pathAndQuery.contains(byte) else { return false }
                index += 1
            }
        }
        return true
    }

    private static func startsWith(_ bytes: UnsafeBufferPointer<UInt8>, _ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard bytes.count >= count else { return false }
        let expected = prefix.utf8Start
        for index in 0..<count where bytes[index] != expected[index] { return false }
        return true
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        let folded = byte | 0x20
        return (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || (folded >= UInt8(ascii: "a") && folded <= UInt8(ascii: "f"))
    }
}

/// A set of ASCII bytes as a 128-bit mask, for ``URLTextLayout/isPlainHTTPURL(_:)``.
private struct PlainURLBytes {
    private let low: UInt64
    private let high: UInt64

    init(_ members: StaticString) {
        var low: UInt64 = 0
        var high: UInt64 = 0
        let bytes = UnsafeBufferPointer(start: members.utf8Start, count: members.utf8CodeUnitCount)
        for byte in bytes where byte < 128 {
            if byte < 64 { low |= 1 << UInt64(byte) } else { high |= 1 << UInt64(byte - 64) }
        }
        self.low = low
        self.high = high
    }

    func contains(_ byte: UInt8) -> Bool {
        if byte < 64 { return low & (1 << UInt64(byte)) != 0 }
        if byte < 128 { return high & (1 << UInt64(byte - 64)) != 0 }
        return false
    }

    /// RFC 3986's unreserved characters.
    static let host = PlainURLBytes("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
    /// Unreserved, sub-delimiters, `:`, `@`, `/` and `?`: a path's and a query's characters
    /// (RFC 3986 §3.3, §3.4) other than percent escapes.
    static let pathAndQuery = PlainURLBytes(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@/?")
}
