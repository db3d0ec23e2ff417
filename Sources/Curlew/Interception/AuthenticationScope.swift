import Foundation

/// Where an authenticator's credential may be sent. Requests to anywhere else pass
/// untouched, so a token never leaks to another host (redirects across hosts also drop the
/// `Authorization` field).
///
/// A credential named by host (``hosts(_:)``, ``anyHost``) goes only over https, or to a
/// loopback host (`localhost`, `127.0.0.1`, `::1`), never in clear text across a network,
/// where anyone on the path could read it (RFC 6750 §5.3): a plain-http request to a host of
/// ``hosts(_:)`` fails with ``CurlewError/Kind/authenticationFailed`` before it is sent. To send
/// a credential over plain http on purpose (a private network), name the `http://` URL in
/// ``urlPrefixes(_:)``.
public struct AuthenticationScope: Sendable, Hashable {
    private enum Rule: Sendable, Hashable {
        case host(String, port: Int?)
        case subdomains(of: String, port: Int?)
        case prefix(scheme: String, host: String, port: Int?, path: String)
        case anyHost
    }

    private let rules: [Rule]

    /// Exactly these hosts, compared case-insensitively, over https (or http to a loopback
    /// host) on any port. An entry may name a port (`"api.example.com:8443"`; without one, every
    /// port of the host is covered, as cookies cover every port), and `"*.example.com"` covers
    /// the subdomains of example.com (not example.com itself). An entry that cannot be parsed
    /// matches nothing.
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
    /// `/v20`). Query and fragment of a prefix are ignored. An `http://` prefix sends the
    /// credential in clear text to that prefix, as asked.
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

    /// Every host, over https (or http to a loopback host). The credential then goes to any
    /// https URL the session requests (redirects across hosts still drop `Authorization`);
    /// prefer ``hosts(_:)``.
    public static let anyHost = AuthenticationScope(rules: [.anyHost])

    /// Whether a credential may be sent to `url`.
    public func contains(_ url: URL) -> Bool {
        coverage(of: url) == .inside
    }

    /// How a URL stands to a scope.
    enum Coverage {
        /// The credential goes with it.
        case inside
        /// A host of the scope, over a channel that would show the credential to the network.
        case insecure
        /// Elsewhere: the request passes untouched.
        case outside
    }

    /// How `url` stands to the scope.
    func coverage(of url: URL) -> Coverage {
        guard let host = url.host.map(Self.canonical) else { return .outside }
        let port = Self.port(of: url)
        var namesHost = false
        for rule in rules {
            switch rule {
            case .anyHost:
                if CookieRules.isSecureChannel(url) { return .inside }
            case .host(let expected, let expectedPort):
                if host == expected && (expectedPort == nil || expectedPort == port) { namesHost = true }
            case .subdomains(let parent, let expectedPort):
                if host.hasSuffix("." + parent) && (expectedPort == nil || expectedPort == port) { namesHost = true }
            case .prefix(let scheme, let expectedHost, let expectedPort, let path):
                guard url.scheme?.lowercased() == scheme, host == expectedHost, port == expectedPort else { continue }
                let actual = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? url.path
                if path.isEmpty || actual == path || actual.hasPrefix(path + "/") { return .inside }
            }
        }
        guard namesHost else { return .outside }
        return CookieRules.isSecureChannel(url) ? .inside : .insecure
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
