import Foundation

/// One HTTP cookie as stored by a ``CookieJar`` (RFC 6265 §5.3).
public struct Cookie: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The `SameSite` attribute.
    public enum SameSite: String, Sendable, Hashable, Codable {
        /// Sent only when the request stays on the site of the original request.
        case strict = "Strict"
        /// Also sent on cross-site GET and HEAD requests.
        case lax = "Lax"
        /// `SameSite=None`: sent everywhere; requires `Secure`.
        case noRestriction = "None"
    }

    /// The name.
    public var name: String
    /// The value.
    public var value: String
    /// The domain, lowercase and without a leading dot.
    public var domain: String
    /// The path; the cookie is sent for this path and below it.
    public var path: String
    /// When the cookie expires; nil for a session cookie, which lasts as long as the jar.
    public var expiresAt: Date?
    /// Sent only over secure channels (https, or a loopback host).
    public var isSecure: Bool
    /// Marked `HttpOnly`: not meant for scripts. Kept and persisted; it does not change what an
    /// HTTP client sends.
    public var isHTTPOnly: Bool
    /// Sent only to exactly ``domain`` (no `Domain` attribute was given), not to its subdomains.
    public var isHostOnly: Bool
    /// The `SameSite` attribute, when given.
    public var sameSite: SameSite?
    /// When the cookie was first stored.
    public var createdAt: Date
    /// When the cookie was last sent or stored.
    public var lastAccessAt: Date

    /// Creates a cookie.
    public init(
        name: String, value: String, domain: String, path: String = "/", expiresAt: Date? = nil,
        isSecure: Bool = false, isHTTPOnly: Bool = false, isHostOnly: Bool = true, sameSite: SameSite? = nil,
        createdAt: Date = Date(), lastAccessAt: Date? = nil
    ) {
        self.name = name
        self.value = value
        self.domain = CookieRules.canonicalDomain(domain)
        self.path = path.hasPrefix("/") ? path : "/"
        self.expiresAt = expiresAt
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.isHostOnly = isHostOnly
        self.sameSite = sameSite
        self.createdAt = createdAt
        self.lastAccessAt = lastAccessAt ?? createdAt
    }

    /// Whether the cookie was expired at `date`.
    public func isExpired(at date: Date = Date()) -> Bool {
        expiresAt.map { $0 <= date } ?? false
    }

    /// A session cookie lasts as long as the jar and is not persisted by default.
    public var isSessionCookie: Bool { expiresAt == nil }

    /// Name, domain, path — the identity of a cookie in a jar (RFC 6265 §5.3 step 11).
    var key: CookieKey { CookieKey(name: name, domain: domain, path: path) }

    /// Whether the cookie goes with a request to `url` (domain, path and Secure rules; not
    /// expiry or SameSite).
    public func matches(_ url: URL) -> Bool {
        guard let host = url.host.map(CookieRules.canonicalDomain) else { return false }
        return matches(host: host, path: CookieRules.requestPath(of: url), secureChannel: CookieRules.isSecureChannel(url))
    }

    /// ``matches(_:)`` for a request whose canonical host, request path and channel are known.
    func matches(host: String, path requestPath: String, secureChannel: Bool) -> Bool {
        let domainOK = isHostOnly ? host == domain : CookieRules.domainMatches(host, domain)
        return domainOK && CookieRules.pathMatches(requestPath, path) && (!isSecure || secureChannel)
    }

    /// `name=value`, without attributes; the value is not shown, so that logs stay safe.
    public var description: String {
        "Cookie(\(name)=…; domain=\(isHostOnly ? "" : ".")\(domain); path=\(path)\(isSecure ? "; Secure" : ""))"
    }
}

/// The identity of a cookie in a jar.
struct CookieKey: Hashable, Sendable {
    let name: String
    let domain: String
    let path: String
}
