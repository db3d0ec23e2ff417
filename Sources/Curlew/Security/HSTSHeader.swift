/// A `Strict-Transport-Security` field value, parsed as RFC 6797 §6.1 says.
///
/// Directives are `name[=value]` separated by `;`, names are case-insensitive, a value is a
/// token or a quoted string. `max-age` is required and is a number of seconds; `includeSubDomains`
/// has no value. A directive that appears twice, a missing or malformed `max-age`, or a
/// value on `includeSubDomains` makes the whole field invalid, and an invalid field is
/// ignored (§6.1: "UAs MUST ignore ... STS header fields not conforming"). Unknown
/// directives are ignored.
struct HSTSHeader: Equatable {
    /// Seconds the host wants HTTPS only, clamped to ``maximumAge``; zero removes the host.
    let maximumAgeSeconds: Int64
    let includesSubdomains: Bool

    /// About 100 years: a longer `max-age` means the same for any store, and keeps dates in range.
    static let maximumAge: Int64 = 100 * 365 * 86_400

    /// The field's meaning, or nil when it does not conform.
    static func parse(_ value: String) -> HSTSHeader? {
        var bytes = Array(value.utf8)[...]
        var maximumAge: Int64?
        var includesSubdomains = false
        var seen = Set<String>()
        while true {
            skipWhitespace(&bytes)
            if bytes.isEmpty { break }
            if bytes.first == UInt8(ascii: ";") {
                // An empty directive (`;;`), which the grammar's `*( ";" [ directive ] )` allows.
                bytes.removeFirst()
                continue
            }
            let name = takeToken(&bytes).lowercased()
            guard !name.isEmpty, seen.insert(name).inserted else { return nil }
            skipWhitespace(&bytes)
            var directiveValue: String?
            if bytes.first == UInt8(ascii: "=") {
                bytes.removeFirst()
                skipWhitespace(&bytes)
                guard let parsed = takeValue(&bytes) else { return nil }
                directiveValue = parsed
                skipWhitespace(&bytes)
            }
            if let next = bytes.first {
                guard next == UInt8(ascii: ";") else { return nil }
                bytes.removeFirst()
            }
            switch name {
            case "max-age":
                guard let text = directiveValue, let seconds = decimalSeconds(text) else { return nil }
                maximumAge = seconds
            case "includesubdomains":
                guard directiveValue == nil else { return nil }
                includesSubdomains = true
            default:
                continue
            }
        }
        guard let maximumAge else { return nil }
        return HSTSHeader(maximumAgeSeconds: maximumAge, includesSubdomains: includesSubdomains)
    }

    /// `1*DIGIT` as seconds, clamped to ``maximumAge``; nil for anything else.
    private static func decimalSeconds(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        var seconds: Int64 = 0
        for digit in text.utf8 {
            seconds = seconds * 10 + Int64(digit - UInt8(ascii: "0"))
            if seconds >= maximumAge { return maximumAge }
        }
        return seconds
    }

    private static func skipWhitespace(_ bytes: inout ArraySlice<UInt8>) {
        while let byte = bytes.first, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { bytes.removeFirst() }
    }

    /// A token (RFC 9110 §5.6.2), possibly empty.
    private static func takeToken(_ bytes: inout ArraySlice<UInt8>) -> String {
        let end = bytes.firstIndex { !isTokenCharacter($0) } ?? bytes.endIndex
        let token = String(decoding: bytes[..<end], as: UTF8.self)
        bytes = bytes[end...]
        return token
    }

    /// A token or a quoted string (with `\` escapes); nil when malformed.
    private static func takeValue(_ bytes: inout ArraySlice<UInt8>) -> String? {
        guard bytes.first == UInt8(ascii: "\"") else {
            let token = takeToken(&bytes)
            return token.isEmpty ? nil : token
        }
        bytes.removeFirst()
        var value: [UInt8] = []
        while let byte = bytes.first {
            bytes.removeFirst()
            switch byte {
            case UInt8(ascii: "\""): return String(decoding: value, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let escaped = bytes.first else { return nil }
                bytes.removeFirst()
                value.append(escaped)
            default: value.append(byte)
            }
        }
        return nil  // No closing quote.
    }

    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
