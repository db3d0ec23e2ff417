/// One challenge of a `WWW-Authenticate` field (RFC 9110 §11.6.1): a scheme and its
/// parameters, enough to recognise `Bearer error="invalid_token"` (RFC 6750 §3).
struct AuthenticationChallenge: Equatable {
    /// The scheme, lowercase.
    var scheme: String
    /// The auth-params, names lowercase, values unquoted.
    var parameters: [String: String] = [:]

    /// The challenges of one field value, in order. Malformed parts are skipped.
    static func parse(_ field: String) -> [AuthenticationChallenge] {
        var challenges: [AuthenticationChallenge] = []
        var scanner = Scanner(Array(field.utf8))
        while true {
            scanner.skip { $0 == 0x20 || $0 == 0x09 || $0 == UInt8(ascii: ",") }
            guard !scanner.isAtEnd else { break }
            let token = scanner.token()
            guard !token.isEmpty else {
                // A stray quoted string or separator: skip it whole.
                if scanner.peek == UInt8(ascii: "\"") { _ = scanner.quoted() } else { scanner.advance() }
                continue
            }
            scanner.skip { $0 == 0x20 || $0 == 0x09 }
            if scanner.peek == UInt8(ascii: "="), !challenges.isEmpty {
                scanner.advance()
                scanner.skip { $0 == 0x20 || $0 == 0x09 }
                let value = scanner.peek == UInt8(ascii: "\"") ? scanner.quoted() : scanner.token()
                challenges[challenges.count - 1].parameters[token.lowercased()] = value
            } else {
                challenges.append(AuthenticationChallenge(scheme: token.lowercased()))
            }
        }
        return challenges
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var isAtEnd: Bool { index >= bytes.count }
        var peek: UInt8? { isAtEnd ? nil : bytes[index] }
        mutating func advance() { index += 1 }

        mutating func skip(while predicate: (UInt8) -> Bool) {
            while let byte = peek, predicate(byte) { index += 1 }
        }

        /// A token (RFC 9110 tchar run), or a token68 without its trailing "=".
        mutating func token() -> String {
            let start = index
            skip { byte in
                byte > 0x20 && byte < 0x7F && !"\"(),/:;<=>?@[\\]{}".utf8.contains(byte) || byte == UInt8(ascii: "/")
            }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        /// A quoted-string, with backslash escapes removed.
        mutating func quoted() -> String {
            advance()
            var value: [UInt8] = []
            while let byte = peek {
                advance()
                if byte == UInt8(ascii: "\"") { break }
                if byte == UInt8(ascii: "\\"), let escaped = peek {
                    value.append(escaped)
                    advance()
                } else {
                    value.append(byte)
                }
            }
            return String(decoding: value, as: UTF8.self)
        }
    }
}
