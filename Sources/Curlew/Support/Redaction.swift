import Foundation
import HTTPTypes

/// The one place that decides how secrets look wherever Curlew prints or logs a request:
/// error descriptions, ``CurlewError/url``, `cURLDescription()` and ``LoggingEventMonitor``.
enum Redaction {
    /// What a password or a credential is replaced with.
    static let placeholder = "***"

    /// `url` as text, with the password of its user info replaced by ``placeholder``; the
    /// user name stays, so the reader still sees which account was used.
    static func string(_ url: URL) -> String {
        string(url.absoluteString)
    }

    /// `text` (a URL, or something meant to be one) with the password of its user info
    /// replaced. Works on the text, so it also redacts strings that do not parse as URLs.
    static func string(_ text: String) -> String {
        guard let range = passwordRange(in: text) else { return text }
        return text.replacingCharacters(in: range, with: placeholder)
    }

    /// `url` with its password replaced, for errors that keep a URL; `url` itself when it has
    /// no password.
    static func url(_ url: URL) -> URL {
        let text = url.absoluteString
        guard passwordRange(in: text) != nil else { return url }
        return URL(string: string(text)) ?? URL(string: "redacted:") ?? url
    }

    /// Whether `text` holds a password in its user info.
    static func hasPassword(_ text: String) -> Bool {
        passwordRange(in: text) != nil
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

    /// A header value with its credentials replaced: `Authorization: Bearer abc` becomes
    /// `Bearer ***` (the scheme stays), a `Cookie` becomes `***`, a `Set-Cookie` keeps the
    /// cookie's name and attributes (`sid=***; Path=/`); other fields are unchanged.
    static func headerValue(_ field: HTTPField) -> String {
        guard credentialHeaders.contains(field.name), !field.value.isEmpty else { return field.value }
        let value = field.value
        switch field.name {
        case .cookie:
            return placeholder
        case .setCookie:
            let end = value.firstIndex(of: ";") ?? value.endIndex
            guard let equals = value[..<end].firstIndex(of: "=") else { return placeholder }
            return String(value[..<equals]) + "=" + placeholder + String(value[end...])
        default:
            guard let space = value.firstIndex(of: " ") else { return placeholder }
            return String(value[..<space]) + " " + placeholder
        }
    }

    /// The form and JSON body fields whose values are secrets.
    static let secretBodyFields: Set<String> = [
        "access_token", "refresh_token", "id_token", "client_secret", "password", "code_verifier", "assertion",
    ]

    /// The query parameters whose values are secrets wherever Curlew persists a URL: the secret
    /// body fields, since an OAuth2 access token may travel in the query too (RFC 6750 §2.3).
    static let secretQueryParameters: Set<String> = secretBodyFields

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
    /// (by its content type, or a body that starts with `{` or `[`) or an URL-encoded form;
    /// other bodies are returned as they are.
    static func body(_ body: Data, contentType: String?, secrets: Set<String>, placeholder: String) -> Data {
        guard !secrets.isEmpty, !body.isEmpty else { return body }
        let type = contentType?.lowercased() ?? ""
        if type.contains("json") || body.first == UInt8(ascii: "{") || body.first == UInt8(ascii: "[") {
            return json(body, secrets: secrets, placeholder: placeholder) ?? body
        }
        if type.contains("x-www-form-urlencoded") {
            return Data(form(String(decoding: body, as: UTF8.self), secrets: secrets, placeholder: placeholder).utf8)
        }
        return body
    }

    private static func form(_ text: String, secrets: Set<String>, placeholder: String) -> String {
        text.split(separator: "&", omittingEmptySubsequences: false).map { pair in
            let (encodedName, name) = formName(of: pair)
            return secrets.contains(name) ? "\(encodedName)=\(placeholder)" : String(pair)
        }.joined(separator: "&")
    }

    /// The name of a form or query pair `name=value`, as written and decoded.
    private static func formName(of pair: Substring) -> (encoded: Substring, decoded: String) {
        let encoded = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
        return (encoded, String(encoded).removingPercentEncoding ?? String(encoded))
    }

    private static func json(_ body: Data, secrets: Set<String>, placeholder: String) -> Data? {
        guard let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) else { return nil }
        func cleaned(_ value: Any) -> Any {
            if let object = value as? [String: Any] {
                var copy: [String: Any] = [:]
                for (key, inner) in object {
                    copy[key] = secrets.contains(key) ? placeholder : cleaned(inner)
                }
                return copy
            }
            if let array = value as? [Any] { return array.map(cleaned) }
            return value
        }
        return try? JSONSerialization.data(withJSONObject: cleaned(object), options: [.sortedKeys, .fragmentsAllowed])
    }
}
