import Foundation

/// The `url.full` of a span: the URL as sent, with credentials and chosen query values
/// replaced by `REDACTED` (the OpenTelemetry spelling) and without the fragment.
enum TracedURL {
    static let placeholder = "REDACTED"

    /// `url` as `url.full` shows it under `redaction`.
    static func full(_ url: URL, redaction: TracingConfiguration.QueryRedaction) -> String {
        full(url.absoluteString, redaction: redaction)
    }

    /// Works on the text, so that what is shown is exactly what was sent, minus the secrets.
    static func full(_ text: String, redaction: TracingConfiguration.QueryRedaction) -> String {
        let utf8 = text.utf8
        // Fast path: nothing to redact or drop without an "@", "?" or "#".
        guard utf8.contains(where: { $0 == UInt8(ascii: "@") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") })
        else { return text }
        var rest = Substring(text)
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        var query: Substring?
        if let question = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: question)...]
            rest = rest[..<question]
        }
        var result = withoutCredentials(rest)
        if let query {
            result += "?" + redacted(query, redaction)
        }
        return result
    }

    /// The URL up to its query, with its user info (name and password) replaced.
    private static func withoutCredentials(_ text: Substring) -> String {
        guard let separator = text.range(of: "://") else { return String(text) }
        let authorityStart = separator.upperBound
        let authorityEnd = text[authorityStart...].firstIndex(of: "/") ?? text.endIndex
        guard let at = text[authorityStart..<authorityEnd].lastIndex(of: "@") else { return String(text) }
        let userInfo = text[authorityStart..<at]
        let replacement = userInfo.contains(":") ? "\(placeholder):\(placeholder)" : placeholder
        return String(text[..<authorityStart]) + replacement + String(text[at...])
    }

    private static func redacted(_ query: Substring, _ redaction: TracingConfiguration.QueryRedaction) -> String {
        let secrets: Set<String>?
        switch redaction {
        case .disabled: return String(query)
        case .all: secrets = nil
        case .parameters(let names):
            if names.isEmpty { return String(query) }
            secrets = names
        }
        return query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard !pair.isEmpty else { return "" }
            let equals = pair.firstIndex(of: "=")
            let rawName = pair[..<(equals ?? pair.endIndex)]
            if let secrets {
                let name = rawName.removingPercentEncoding ?? String(rawName)
                guard equals != nil, secrets.contains(name) else { return String(pair) }
            } else if equals == nil {
                // A bare `?token` may be the secret itself.
                return placeholder
            }
            return String(rawName) + "=" + placeholder
        }.joined(separator: "&")
    }
}
