import Foundation
import HTTPTypes

/// The one place that decides how secrets look wherever Curlew prints, logs or persists a
/// request: error descriptions, ``CurlewError/url``, `print`/`debugPrint` of requests and
/// responses, `cURLDescription()`, ``LoggingEventMonitor`` and ``DownloadResumeData``.
enum Redaction {
    /// What a password or a credential is replaced with.
    static let placeholder = "***"

    /// `url` as text, with the password of its user info and the values of secret query
    /// parameters (``secretFieldNames``, such as `access_token`) replaced by ``placeholder``;
    /// the user name stays, so the reader still sees which account was used.
    static func string(_ url: URL) -> String {
        string(url.absoluteString)
    }

    /// `text` (a URL, or something meant to be one) with the password of its user info and
    /// the values of secret query parameters replaced. Works on the text, so it also redacts
    /// strings that do not parse as URLs.
    static func string(_ text: String) -> String {
        let withoutPassword = passwordRange(in: text).map { text.replacingCharacters(in: $0, with: placeholder) } ?? text
        return redactingQuery(of: withoutPassword)
    }

    /// `url` with its secrets replaced (see ``string(_:)-(URL)``), for errors that keep a URL;
    /// `url` itself when it has none.
    static func url(_ url: URL) -> URL {
        let text = url.absoluteString
        let redacted = string(text)
        guard redacted != text else { return url }
        return URL(string: redacted) ?? URL(string: "redacted:") ?? url
    }

    /// Whether the query of `text` (a URL) has a value for a secret parameter
    /// (``secretFieldNames``).
    static func hasSecretQueryValue(_ text: String) -> Bool {
        redactingQuery(of: text) != text
    }

    /// `text` with the values of the query's secret parameters replaced; the query is what
    /// follows the first `?`, up to a `#`.
    private static func redactingQuery(of text: String) -> String {
        guard let question = text.utf8.firstIndex(of: UInt8(ascii: "?")) else { return text }
        let start = text.index(after: question)
        let end = text[start...].firstIndex(of: "#") ?? text.endIndex
        let query = text[start..<end]
        // Fast path: no secret name (a percent-encoded name is decoded before it is compared).
        guard query.contains("%") || secretFieldNames.contains(where: { query.contains($0) }) else { return text }
        return text.replacingCharacters(
            in: start..<end, with: form(String(query), secrets: secretFieldNames, placeholder: placeholder))
    }

    /// The password's characters in `scheme://user:password@host…`: between the first `:` of
    /// the user info and the last `@` of the authority (which ends at `/`, `?` or `#`). Nil
    /// when there is no password, or it is empty.
    private static func passwordRange(in text: String) -> Range<String.Index>? {
        // Fast path: no user info without an "@".
        guard text.utf8.contains(UInt8(ascii: "@")), let separator = text.range(of: "://") else { return nil }
        let authorityStart = separator.upperBound
        let authorityEnd = text[authorityStart...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? text.endIndex
        let authority = text[authorityStart..<authorityEnd]
        guard let at = authority.lastIndex(of: "@") else { return nil }
        let userInfo = authority[authority.startIndex..<at]
        guard let colon = userInfo.firstIndex(of: ":") else { return nil }
        let password = text.index(after: colon)..<at
        return password.isEmpty ? nil : password
    }

    /// The header fields whose values are credentials.
    static let credentialHeaders: Set<HTTPField.Name> = [.authorization, .proxyAuthorization, .cookie, .setCookie]

    /// Parts of a field name that mark its value as a secret, such as `X-Api-Key`,
    /// `X-Auth-Token`, `X-Amz-Security-Token` or `X-Client-Secret` (names compared in lower case).
    static let secretHeaderNameParts = ["auth", "token", "secret", "password", "passwd", "api-key", "apikey", "session", "signature", "credential", "cookie"]

    /// Whether a field's value is a secret: a credential field, or a name with a part of
    /// ``secretHeaderNameParts``.
    static func isSecretHeader(_ name: HTTPField.Name) -> Bool {
        if credentialHeaders.contains(name) { return true }
        // A challenge carries no secret, and it is what a reader of a failed login needs.
        if name == .wwwAuthenticate || name == .proxyAuthenticate { return false }
        let canonical = name.canonicalName
        return secretHeaderNameParts.contains { canonical.contains($0) }
    }

    /// A header value with its secret replaced: `Authorization: Bearer abc` becomes
    /// `Bearer ***` (the scheme stays), a `Cookie` becomes `***`, a `Set-Cookie` keeps the
    /// cookie's name and attributes (`sid=***; Path=/`), another secret field (see
    /// ``isSecretHeader(_:)``) becomes `***`; other fields are unchanged.
    static func headerValue(_ field: HTTPField) -> String {
        guard !field.value.isEmpty, isSecretHeader(field.name) else { return field.value }
        let value = field.value
        switch field.name {
        case .setCookie:
            let end = value.firstIndex(of: ";") ?? value.endIndex
            guard let equals = value[..<end].firstIndex(of: "=") else { return placeholder }
            return String(value[..<equals]) + "=" + placeholder + String(value[end...])
        case .authorization, .proxyAuthorization:
            guard let space = value.firstIndex(of: " ") else { return placeholder }
            return String(value[..<space]) + " " + placeholder
        default:
            return placeholder
        }
    }

    /// The names whose values are secrets in JSON and form bodies and in query strings.
    static let secretFieldNames: Set<String> = [
        "access_token", "refresh_token", "id_token", "client_secret", "password", "code_verifier", "assertion",
    ]

    /// The query parameters whose values are secrets wherever Curlew persists a URL: the secret
    /// body fields, since an OAuth2 access token may travel in the query too (RFC 6750 §2.3).
    static let secretQueryParameters: Set<String> = secretFieldNames

    /// `url` as Curlew persists it (resume data): without user information, and without the
    /// query parameters in ``secretQueryParameters``. Unlike ``url(_:)``, nothing is replaced
    /// by a placeholder: the URL is requested again, and the session supplies its credentials
    /// then. A URL whose parts cannot be read keeps no password (``url(_:)``).
    static func persistable(_ url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return Redaction.url(url) }
        components.user = nil
        components.password = nil
        if let query = components.percentEncodedQuery {
            let kept = query.split(separator: "&", omittingEmptySubsequences: false).filter { pair in
                !secretQueryParameters.contains(formName(of: pair).decoded)
            }
            components.percentEncodedQuery = kept.isEmpty ? nil : kept.joined(separator: "&")
        }
        return components.url ?? Redaction.url(url)
    }

    /// `body` with the values of the `secrets` fields replaced by `placeholder` when it is JSON
    /// (by its content type, or a body that starts with `{` or `[`) or an URL-encoded form
    /// (by its content type, or a body without one); other bodies are returned as they are.
    /// Everything else stays byte for byte, so a body without secrets prints as it is sent; a JSON body that does not parse (cut short, or
    /// malformed) is still searched, and a secret's value that never ends is replaced to the
    /// end of the body.
    static func body(_ body: Data, contentType: String?, secrets: Set<String>, placeholder: String) -> Data {
        guard !secrets.isEmpty, !body.isEmpty else { return body }
        let type = contentType?.lowercased() ?? ""
        if type.contains("json") || body.first == UInt8(ascii: "{") || body.first == UInt8(ascii: "[") {
            return json(body, secrets: secrets, placeholder: placeholder)
        }
        // A body without a type is searched as a form too: text that is not one has no
        // `name=value` pair with a secret name, so it stays as it is.
        if type.contains("x-www-form-urlencoded") || type.isEmpty {
            return Data(form(String(decoding: body, as: UTF8.self), secrets: secrets, placeholder: placeholder).utf8)
        }
        return body
    }

    /// `name=value` pairs joined by `&` (a form body, or a query), with the values of the
    /// `secrets` names replaced; names are compared percent-decoded, with `+` as a space.
    static func form(_ text: String, secrets: Set<String>, placeholder: String) -> String {
        text.split(separator: "&", omittingEmptySubsequences: false).map { pair in
            let (encodedName, name) = formName(of: pair)
            return secrets.contains(name) && encodedName.endIndex < pair.endIndex ? "\(encodedName)=\(placeholder)" : String(pair)
        }.joined(separator: "&")
    }

    /// The name of a form or query pair `name=value`, as written and decoded (percent-decoded,
    /// `+` as a space).
    private static func formName(of pair: Substring) -> (encoded: Substring, decoded: String) {
        let encoded = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let spaced = String(encoded).replacingOccurrences(of: "+", with: " ")
        return (encoded, spaced.removingPercentEncoding ?? spaced)
    }

    /// JSON text with the value of every member named in `secrets`, at any depth, replaced by
    /// `"placeholder"`. A scan over the tokens rather than a parse: the rest keeps its bytes.
    private static func json(_ body: Data, secrets: Set<String>, placeholder: String) -> Data {
        let bytes = [UInt8](body)
        var output: [UInt8] = []
        var copied = 0  // bytes[..<copied] are in `output` (or replaced there)
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "\"") else {
                index += 1
                continue
            }
            let keyEnd = JSONScan.stringEnd(bytes, from: index)
            var next = JSONScan.skipSpace(bytes, from: keyEnd)
            guard next < bytes.count, bytes[next] == UInt8(ascii: ":"),
                let name = JSONScan.decodedString(bytes[index..<keyEnd]), secrets.contains(name)
            else {
                index = keyEnd
                continue
            }
            next = JSONScan.skipSpace(bytes, from: next + 1)
            let valueEnd = JSONScan.valueEnd(bytes, from: next)
            output += bytes[copied..<next]
            output += Array("\"\(placeholder)\"".utf8)
            copied = valueEnd
            index = valueEnd
        }
        guard copied > 0 else { return body }
        output += bytes[copied...]
        return Data(output)
    }
}

/// Finding the ends of JSON tokens in text that may be malformed or cut short: every function
/// stops at the end of the bytes rather than failing.
private enum JSONScan {
    /// The index after the string that starts with the quote at `start`.
    static func stringEnd(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return bytes.count
    }

    static func skipSpace(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        return index
    }

    /// The index after the value that starts at `start`: a string, an object or array (to its
    /// matching bracket, strings inside skipped), or a number or literal (to the next `,`, `}`,
    /// `]` or space).
    static func valueEnd(_ bytes: [UInt8], from start: Int) -> Int {
        guard start < bytes.count else { return start }
        switch bytes[start] {
        case UInt8(ascii: "\""):
            return stringEnd(bytes, from: start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var index = start
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    index = stringEnd(bytes, from: index)
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return index + 1 }
                default: break
                }
                index += 1
            }
            return bytes.count
        default:
            var index = start
            while index < bytes.count, !",}] \t\r\n".utf8.contains(bytes[index]) { index += 1 }
            return index
        }
    }

    /// The text of a JSON string token (quotes included), escapes decoded; nil if it is not one.
    static func decodedString(_ token: ArraySlice<UInt8>) -> String? {
        guard token.count >= 2, token.last == UInt8(ascii: "\"") else { return nil }
        let inner = token.dropFirst().dropLast()
        if !inner.contains(UInt8(ascii: "\\")) { return String(decoding: inner, as: UTF8.self) }
        return try? JSONDecoder().decode(String.self, from: Data(token))
    }
}
