import Foundation

/// Where an authenticator's credential may be sent. Requests to anywhere else pass
/// untouched, so a token never leaks to another host (redirects across hosts also drop the
/// `Authorization` field).
public struct AuthenticationScope: Sendable, Hashable {
    private enum Rule: Sendable, Hashable {
        case host(String, port: Int?)
        case subdomains(of: String, port: Int?)
        case prefix(scheme: String, host: String, port: Int?, path: String)
        case anyHost
    }

    private let rules: [Rule]

    /// Exactly these hosts, compared case-insensitively, on any port and scheme. An entry may
    /// name a port (`"api.example.com:8443"`), and `"*.example.com"` covers the subdomains of
    /// example.com (not example.com itself). An entry that cannot be parsed matches nothing.
    public static func hosts(_ hosts: [String]) -> AuthenticationScope {
        AuthenticationScope(rules: hosts.compactMap { entry in
            var text = entry.trimmingCharacters(in: .whitespaces).lowercased()
            var port: Int?
            if let colon = text.lastIndex(of: ":"), !text.hasSuffix("]"), text.filter({ $0 == ":" }).count == 1 {
                guard let number = Int(text[text.index(after: colon)...]) else { return nil }
                port = number
                text = String(text[..<colon])
            } else if text.hasPrefix("["), let close = text.lastIndex(of: "]"), close != text.index(before: text.endIndex) {
                let rest = text[text.index(after: close)...]
                guard rest.hasPrefix(":"), let number = Int(rest.dropFirst()) else { return nil }
                port = number
                text = String(text[...close])
            }
            let host = Self.canonical(text)
            guard !host.isEmpty else { return nil }
            if host.hasPrefix("*.") { return .subdomains(of: String(host.dropFirst(2)), port: port) }
            return .host(host, port: port)
        })
    }

    /// URLs that start with one of these: same scheme, host and port, and a path equal to the
    /// prefix's or below it (`https://api.example.com/v2` covers `/v2` and `/v2/users`, not
    /// `/v20`). Query and fragment of a prefix are ignored.
    public static func urlPrefixes(_ prefixes: [URL]) -> AuthenticationScope {
        AuthenticationScope(rules: prefixes.compactMap { url in
            guard let scheme = url.scheme?.lowercased(), let host = url.host.map(Self.canonical), !host.isEmpty else {
                return nil
            }
            var path = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? url.path
            while path.hasSuffix("/") { path.removeLast() }
            return .prefix(scheme: scheme, host: host, port: Self.port(of: url), path: path)
        })
    }

    /// Every host. The credential then goes to any URL the session requests (redirects across
    /// hosts still drop `Authorization`); prefer ``hosts(_:)``.
    public static let anyHost = AuthenticationScope(rules: [.anyHost])

    /// Whether a credential may be sent to `url`.
    public func contains(_ url: URL) -> Bool {
        guard let host = url.host.map(Self.canonical) else { return false }
        let port = Self.port(of: url)
        for rule in rules {
            switch rule {
            case .anyHost:
                return true
            case .host(let expected, let expectedPort):
                if host == expected && (expectedPort == nil || expectedPort == port) { return true }
            case .subdomains(let parent, let expectedPort):
                if host.hasSuffix("." + parent) && (expectedPort == nil || expectedPort == port) { return true }
            case .prefix(let scheme, let expectedHost, let expectedPort, let path):
                guard url.scheme?.lowercased() == scheme, host == expectedHost, port == expectedPort else { continue }
                let actual = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? url.path
                if path.isEmpty || actual == path || actual.hasPrefix(path + "/") { return true }
            }
        }
        return false
    }

    private static func canonical(_ host: String) -> String {
        var text = host.lowercased()
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    private static func port(of url: URL) -> Int? {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : url.scheme?.lowercased() == "http" ? 80 : nil)
    }
}
