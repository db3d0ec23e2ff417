import Foundation

/// The cookies of a ``CookieJar``, by identity, with the index its limits need: the
/// identities of each site's cookies, a site being the registrable domain of a cookie's
/// domain (`example.co.uk` for `shop.example.co.uk`; an address or a public suffix is its own
/// site). Guarded by the jar's lock.
///
/// The limits keep a hostile server from growing the jar without bound, and from emptying it
/// of other sites' cookies: at most ``CookieJar/maximumCookiesPerDomain`` per domain (the
/// least recently used go first), and past ``CookieJar/maximumCookies`` in all, expired
/// cookies go first, then the least recently used of the site that holds the most. A server
/// that sets thousands of cookies through its own subdomains evicts only its own.
struct CookieJarContents {
    /// Every cookie, by name, domain and path.
    private(set) var cookies: [CookieKey: Cookie] = [:]
    /// The site each stored cookie belongs to.
    private var siteOfKey: [CookieKey: String] = [:]
    /// The identities of each site's cookies.
    private var keysBySite: [String: Set<CookieKey>] = [:]
    /// The identities of each domain's cookies.
    private var keysByDomain: [String: Set<CookieKey>] = [:]
    /// The identities of the `Secure` cookies, which an insecure origin must leave alone.
    private var secureKeys: Set<CookieKey> = []
    /// Extra public suffixes, for the sites.
    let additionalPublicSuffixes: Set<String>

    init(additionalPublicSuffixes: Set<String>) {
        self.additionalPublicSuffixes = additionalPublicSuffixes
    }

    var count: Int { cookies.count }
    var values: Dictionary<CookieKey, Cookie>.Values { cookies.values }

    /// Stores `cookie`, replacing one with the same identity (whose creation time it keeps,
    /// unless `keepingTimes`: a cookie loaded from a file keeps both of its times); an expired
    /// cookie removes the stored one. Then applies the limits.
    mutating func insert(_ cookie: Cookie, now: Date, keepingTimes: Bool = false) {
        let key = cookie.key
        if cookie.isExpired(at: now) {
            remove(key)
            return
        }
        var cookie = cookie
        if !keepingTimes {
            if let existing = cookies[key] { cookie.createdAt = existing.createdAt }
            cookie.lastAccessAt = now
        }
        let site = siteOfKey[key] ?? site(of: cookie.domain)
        cookies[key] = cookie
        siteOfKey[key] = site
        keysBySite[site, default: []].insert(key)
        keysByDomain[cookie.domain, default: []].insert(key)
        if cookie.isSecure { secureKeys.insert(key) } else { secureKeys.remove(key) }
        evictPastDomainLimit(cookie.domain, now: now)
        evictPastTotalLimit(now: now)
    }

    /// The cookies whose domain is `host` or one of its parent domains (only `host` itself for
    /// an address): those that may go to it, found without looking at the others.
    func candidates(forHost host: String) -> [Cookie] {
        var found: [Cookie] = []
        var domain = Substring(host)
        while true {
            if let keys = keysByDomain[String(domain)] {
                for key in keys { if let cookie = cookies[key] { found.append(cookie) } }
            }
            guard !CookieRules.isIPAddress(host), let dot = domain.firstIndex(of: ".") else { break }
            domain = domain[domain.index(after: dot)...]
        }
        return found
    }

    /// Marks the cookie as sent at `now`.
    mutating func touch(_ key: CookieKey, now: Date) {
        cookies[key]?.lastAccessAt = now
    }

    mutating func remove(_ key: CookieKey) {
        guard cookies.removeValue(forKey: key) != nil, let site = siteOfKey.removeValue(forKey: key) else { return }
        keysBySite[site]?.remove(key)
        if keysBySite[site]?.isEmpty == true { keysBySite[site] = nil }
        keysByDomain[key.domain]?.remove(key)
        if keysByDomain[key.domain]?.isEmpty == true { keysByDomain[key.domain] = nil }
        secureKeys.remove(key)
    }

    /// The `Secure` cookies.
    var secureCookies: [Cookie] { secureKeys.compactMap { cookies[$0] } }

    mutating func removeAll(where shouldRemove: (Cookie) -> Bool) {
        let doomed = cookies.compactMap { shouldRemove($0.value) ? $0.key : nil }
        for key in doomed { remove(key) }
    }

    mutating func removeAll() {
        cookies.removeAll()
        siteOfKey.removeAll()
        keysBySite.removeAll()
        keysByDomain.removeAll()
        secureKeys.removeAll()
    }

    private func site(of domain: String) -> String {
        PublicSuffixes.registrableDomain(of: domain, additional: additionalPublicSuffixes) ?? domain
    }

    /// Expired cookies first, then by last access.
    private static func rank(_ cookie: Cookie?, _ now: Date) -> (Int, Date) {
        guard let cookie else { return (0, .distantPast) }
        return (cookie.isExpired(at: now) ? 0 : 1, cookie.lastAccessAt)
    }

    private mutating func evictPastDomainLimit(_ domain: String, now: Date) {
        guard let keys = keysByDomain[domain], keys.count > CookieJar.maximumCookiesPerDomain else { return }
        let ranked = keys.compactMap { key in cookies[key].map { (key, Self.rank($0, now)) } }.sorted { $0.1 < $1.1 }
        for (key, _) in ranked.prefix(keys.count - CookieJar.maximumCookiesPerDomain) { remove(key) }
    }

    private mutating func evictPastTotalLimit(now: Date) {
        guard count > CookieJar.maximumCookies else { return }
        removeAll { $0.isExpired(at: now) }
        while count > CookieJar.maximumCookies {
            // The site holding the most cookies gives up its least recently used one.
            guard let largest = keysBySite.max(by: { $0.value.count < $1.value.count })?.value,
                let victim = largest.min(by: { Self.rank(cookies[$0], now) < Self.rank(cookies[$1], now) })
            else { return }
            remove(victim)
        }
    }
}
