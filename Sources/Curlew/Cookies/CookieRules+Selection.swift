import Foundation
import HTTPTypes

extension CookieRules {
    /// The cookies of `candidates` that go with a request to `url`, in the order RFC 6265 §5.4
    /// sends them (longer paths first, then older cookies first, then by name): domain, path
    /// and `Secure` must match, expired cookies stay home, and on a cross-site request
    /// `SameSite=Strict` cookies — and `Lax` ones except with GET and HEAD — are withheld.
    static func select(
        from candidates: some Sequence<Cookie>, for url: URL, siteForCookies: URL?, method: HTTPRequest.Method,
        now: Date, additionalPublicSuffixes: Set<String>
    ) -> [Cookie] {
        guard let host = url.host.map(canonicalDomain) else { return [] }
        let path = requestPath(of: url)
        let secureChannel = isSecureChannel(url)
        let crossSite = isCrossSite(url, siteForCookies, additionalPublicSuffixes: additionalPublicSuffixes)
        var matching: [Cookie] = []
        for cookie in candidates
        where !cookie.isExpired(at: now) && cookie.matches(host: host, path: path, secureChannel: secureChannel) {
            if crossSite {
                if cookie.sameSite == .strict { continue }
                if cookie.sameSite == .lax && method != .get && method != .head { continue }
            }
            matching.append(cookie)
        }
        matching.sort { a, b in
            if a.path.count != b.path.count { return a.path.count > b.path.count }
            if a.createdAt != b.createdAt { return a.createdAt < b.createdAt }
            return a.name < b.name
        }
        return matching
    }

    /// `name=value` pairs joined by `; `, or nil for none.
    static func headerValue(_ cookies: [Cookie]) -> String? {
        cookies.isEmpty ? nil : cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Whether `url` belongs to another site (registrable domain) than `site`.
    static func isCrossSite(_ url: URL, _ site: URL?, additionalPublicSuffixes: Set<String>) -> Bool {
        guard let site, let siteHost = site.host.map(canonicalDomain), let host = url.host.map(canonicalDomain) else {
            return false
        }
        let a = PublicSuffixes.registrableDomain(of: host, additional: additionalPublicSuffixes) ?? host
        let b = PublicSuffixes.registrableDomain(of: siteHost, additional: additionalPublicSuffixes) ?? siteHost
        return a != b
    }
}

extension SetCookieParser {
    /// The cookies the valid fields of `fields` set; the others are ignored, as RFC 6265 says.
    static func cookies(from fields: [String], for url: URL, now: Date, publicSuffixes: Set<String>) -> [Cookie] {
        fields.compactMap { field in
            if case .store(let cookie) = parse(field, from: url, now: now, publicSuffixes: publicSuffixes) { return cookie }
            return nil
        }
    }
}

extension CookieJar: CookieStorage {
    /// The stored cookies whose domain is `host` or one of its parent domains, expired ones
    /// included until they are purged.
    public func cookies(forHost host: String) -> [Cookie] {
        let host = CookieRules.canonicalDomain(host)
        return cookiesOfDomains(enclosing: host).filter { $0.isHostOnly ? $0.domain == host : CookieRules.domainMatches(host, $0.domain) }
    }

    /// Stores cookies already parsed (the jar's limits apply); an expired one removes the
    /// stored cookie.
    public func store(_ cookies: [Cookie], receivedFrom url: URL) {
        for cookie in cookies where CookieRules.isSendable(name: cookie.name, value: cookie.value) {
            try? set(cookie)
        }
    }

    /// The `Cookie` field value for a request to `url`, now.
    public func cookieHeader(for url: URL, siteForCookies: URL?, method: HTTPRequest.Method) -> String? {
        cookieHeader(for: url, siteForCookies: siteForCookies, method: method, now: Date())
    }

    /// Stores the cookies of these `Set-Cookie` values, now, with the jar's extra suffixes.
    public func storeCookies(setCookieFields: [String], for url: URL) {
        storeCookies(setCookieFields: setCookieFields, for: url, now: Date())
    }
}
