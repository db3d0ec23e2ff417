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
    static let credentialHeaders: Set<HTTPField.Name> = [.authorization, .proxyAuthorization, .cookie]

    /// A header value with its credentials replaced: `Authorization: Bearer abc` becomes
    /// `Bearer ***` (the scheme stays), a `Cookie` becomes `***`; other fields are unchanged.
    static func headerValue(_ field: HTTPField) -> String {
        guard credentialHeaders.contains(field.name), !field.value.isEmpty else { return field.value }
        if field.name != .cookie, let space = field.value.firstIndex(of: " ") {
            return String(field.value[..<space]) + " " + placeholder
        }
        return placeholder
    }
}
