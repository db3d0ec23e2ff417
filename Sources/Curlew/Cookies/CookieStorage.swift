import Foundation
import HTTPTypes

/// Where a session keeps its cookies: HTTPTransport's cookie provider (what goes out) and
/// cookie store (what came in) in one. ``CookieJar`` is the storage Curlew ships; conform your
/// own type to keep cookies in a database, and set it as ``SessionConfiguration/cookieStorage``.
///
/// A storage only keeps cookies by their identity — name, domain and path. Curlew applies
/// RFC 6265 around it: it parses every `Set-Cookie` (public suffixes, `Secure`, the `__Host-`
/// and `__Secure-` prefixes, the 400-day cap) before calling ``store(_:receivedFrom:)``, and it
/// picks from what ``cookies(forHost:)`` returns the cookies a request may carry (domain and
/// path, `Secure`, expiry, `SameSite`), in RFC 6265's order, in one `Cookie` field.
///
/// ```swift
/// final class DatabaseCookies: CookieStorage {
///     private let cache = Mutex<[String: [Cookie]]>([:])       // by domain, loaded at start
///     func cookies(forHost host: String) -> [Cookie] { … }     // from memory
///     func store(_ cookies: [Cookie], receivedFrom url: URL) { … } // memory now, database later
/// }
/// ```
///
/// Both methods are called on the session's own thread, at every redirect hop: answer from
/// memory and write to slow storage in the background, or every transfer of the session waits.
public protocol CookieStorage: Sendable {
    /// The stored cookies that may go to `host` (lowercase): at least every cookie whose domain
    /// is `host` or one of its parent domains. Returning more is harmless; Curlew filters.
    func cookies(forHost host: String) -> [Cookie]

    /// Stores cookies received from `url`. Each replaces a stored cookie with the same name,
    /// domain and path; an already expired one removes it (that is how servers delete cookies).
    func store(_ cookies: [Cookie], receivedFrom url: URL)

    /// The value of the `Cookie` field for a request to `url`, or nil when no cookie goes. The
    /// default picks from ``cookies(forHost:)`` by RFC 6265's rules; implement it only to do
    /// the same faster.
    func cookieHeader(for url: URL, siteForCookies: URL?, method: HTTPRequest.Method) -> String?

    /// Parses the `Set-Cookie` field values received from `url` and stores the valid ones. The
    /// default parses by RFC 6265 with the Public Suffix List, leaves out a cookie from an
    /// insecure channel that would replace or shadow a `Secure` cookie of the host or its parent
    /// domains (``cookies(forHost:)``), and calls ``store(_:receivedFrom:)``.
    func storeCookies(setCookieFields: [String], for url: URL)
}

extension CookieStorage {
    public func cookieHeader(for url: URL, siteForCookies: URL?, method: HTTPRequest.Method) -> String? {
        guard let host = url.host.map(CookieRules.canonicalDomain) else { return nil }
        let chosen = CookieRules.select(
            from: cookies(forHost: host), for: url, siteForCookies: siteForCookies, method: method, now: Date(),
            additionalPublicSuffixes: [])
        return CookieRules.headerValue(chosen)
    }

    public func storeCookies(setCookieFields: [String], for url: URL) {
        var parsed = SetCookieParser.cookies(from: setCookieFields, for: url, now: Date(), publicSuffixes: [])
        if !CookieRules.isSecureChannel(url), parsed.contains(where: { !$0.isSecure }), let host = url.host.map(CookieRules.canonicalDomain) {
            // Leave secure cookies alone: among those of this host and its parent domains.
            let stored = cookies(forHost: host)
            parsed.removeAll { CookieRules.wouldShadowSecureCookie($0, receivedFrom: url, among: stored) }
        }
        if !parsed.isEmpty { store(parsed, receivedFrom: url) }
    }
}
