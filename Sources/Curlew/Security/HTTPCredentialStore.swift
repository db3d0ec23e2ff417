import Foundation

/// The session's credentials for HTTP authentication, each for one origin: scheme, host and
/// port.
///
/// ```swift
/// var configuration = SessionConfiguration()
/// try configuration.httpCredentials.set(
///     HTTPCredential(username: "ann", password: secret, method: .digest),
///     for: URL(string: "https://api.example.com")!)
/// ```
///
/// A request without credentials of its own (see `authenticate(username:password:method:)`)
/// uses the entry for the origin of each hop it makes: the one it starts at, and each redirect
/// target. No entry is ever sent to another origin — `http` and `https`, or two ports, are two
/// origins.
public struct HTTPCredentialStore: Sendable, Hashable {
    /// Scheme, host and port, normalised: lowercase, no IPv6 brackets or trailing dot, and the
    /// scheme's default port when none is written.
    struct Origin: Sendable, Hashable {
        var scheme: String
        var host: String
        var port: Int

        init?(_ url: URL) {
            guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                var host = url.host?.lowercased(), !host.isEmpty
            else { return nil }
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            if host.hasSuffix(".") { host.removeLast() }
            self.scheme = scheme
            self.host = host
            port = url.port ?? (scheme == "https" ? 443 : 80)
        }
    }

    private var entries: [Origin: HTTPCredential] = [:]

    /// An empty store.
    public init() {}

    /// Whether the store holds no credential.
    public var isEmpty: Bool { entries.isEmpty }

    /// Stores `credential` for the origin of `url` (its path and query do not matter), or
    /// removes the origin's entry when `credential` is nil.
    /// - Throws: ``CurlewError/Kind/invalidURL`` unless `url` is http or https with a host.
    public mutating func set(_ credential: HTTPCredential?, for url: URL) throws(CurlewError) {
        guard let origin = Origin(url) else {
            throw CurlewError(
                .invalidURL, "credentials need an http or https URL with a host", url: Redaction.url(url))
        }
        entries[origin] = credential
    }

    /// The credential for the origin of `url`, if any.
    public func credential(for url: URL) -> HTTPCredential? {
        guard !entries.isEmpty, let origin = Origin(url) else { return nil }
        return entries[origin]
    }
}
