import Foundation
import HTTPTypes
import Synchronization

/// An RFC 6265 cookie store, safe to share between sessions and threads.
///
/// ```swift
/// let jar = try CookieJar(contentsOf: cookiesFile)      // or CookieJar() in memory
/// var configuration = SessionConfiguration()
/// configuration.cookieStorage = jar
/// let session = Session(configuration: configuration)
/// …
/// try jar.save(to: cookiesFile)
/// ```
///
/// A session with a jar sends the matching cookies with every request and stores every
/// `Set-Cookie` it receives — at each redirect hop, so a cookie set by a 302 goes with the next
/// hop, and a hop to another host gets that host's cookies only. Cookies the caller puts in a
/// request's own `Cookie` header are sent before the jar's (and, like `Authorization`, dropped
/// when a redirect crosses hosts).
///
/// The rules: host-only and `Domain` cookies, path matching, `Expires` and `Max-Age` (which
/// wins), `Secure` (sent and accepted only over https or to a loopback host), `HttpOnly`
/// (kept), `SameSite` (Strict and Lax cookies are withheld from requests to another site than
/// the first request of the transfer; Lax ones still go with GET and HEAD), the `__Secure-`
/// and `__Host-` prefixes, and public-suffix safety from a built-in list of common suffixes
/// (extend it with `additionalPublicSuffixes`). At most 50 cookies per domain are kept (the
/// least recently used go first) and 3000 in all (past that, the least recently used of the
/// site holding the most go first, so that one server's many subdomains cannot push out other
/// sites' cookies). A cookie received over an insecure channel never replaces or shadows a
/// `Secure` one (RFC 6265bis, "leave secure cookies alone").
///
/// All methods are synchronous and thread-safe: the engine calls them on its I/O thread, so
/// they only touch memory. Persist with ``save(to:includingSessionCookies:now:)``.
public final class CookieJar: Sendable {
    /// Cookies kept per domain before the least recently used are dropped.
    static let maximumCookiesPerDomain = 50
    /// Cookies kept in all before the least recently used are dropped.
    static let maximumCookies = 3000

    /// Extra public suffixes (such as `"corp.example"`) for which no cookie may be set.
    public let additionalPublicSuffixes: Set<String>
    private let cookies: Mutex<CookieJarContents>

    /// An empty jar in memory.
    public init(additionalPublicSuffixes: Set<String> = []) {
        let suffixes = Set(additionalPublicSuffixes.map(CookieRules.canonicalDomain))
        self.additionalPublicSuffixes = suffixes
        cookies = Mutex(CookieJarContents(additionalPublicSuffixes: suffixes))
    }

    /// A jar loaded from a file written by ``save(to:includingSessionCookies:now:)``. A missing
    /// file gives an empty jar; an unreadable or malformed one is an error.
    public convenience init(contentsOf fileURL: URL, additionalPublicSuffixes: Set<String> = []) throws(CurlewError) {
        self.init(additionalPublicSuffixes: additionalPublicSuffixes)
        if let data = try PrivateFile.contents(of: fileURL, what: "the cookie file", maximumSize: PrivateFile.maximumCookieFileSize) { try load(data, from: fileURL, now: Date()) }
    }

    // MARK: The HTTP side

    /// Stores the `Set-Cookie` fields of a response to `url`.
    public func storeCookies(from head: HTTPResponse, for url: URL, now: Date = Date()) {
        let fields = head.headerFields[values: .setCookie]
        if !fields.isEmpty { storeCookies(setCookieFields: fields, for: url, now: now) }
    }

    /// Stores the cookies of `Set-Cookie` field values received from `url`; invalid or unsafe
    /// ones are ignored, as RFC 6265 requires. An expired cookie deletes the stored one. A
    /// cookie from an insecure channel that would replace or shadow a `Secure` cookie is ignored.
    func storeCookies(setCookieFields: [String], for url: URL, now: Date = Date()) {
        let parsed = SetCookieParser.cookies(from: setCookieFields, for: url, now: now, publicSuffixes: additionalPublicSuffixes)
        guard !parsed.isEmpty else { return }
        let insecureChannel = !CookieRules.isSecureChannel(url)
        cookies.withLock { stored in
            for cookie in parsed {
                if insecureChannel, !cookie.isSecure,
                    CookieRules.wouldShadowSecureCookie(cookie, receivedFrom: url, among: stored.secureCookies)
                {
                    continue
                }
                stored.insert(cookie, now: now)
            }
        }
    }

    /// The value of the `Cookie` field for a request to `url`, or nil when no cookie matches.
    ///
    /// - Parameters:
    ///   - url: the URL the request goes to.
    ///   - siteForCookies: the URL whose site the request belongs to (the first URL of a
    ///     redirect chain); Strict and Lax cookies of another site are withheld. Nil treats the
    ///     request as same-site.
    ///   - method: the request method, for `SameSite=Lax`.
    ///   - now: the time against which cookies expire.
    func cookieHeader(
        for url: URL, siteForCookies: URL? = nil, method: HTTPRequest.Method = .get, now: Date = Date()
    ) -> String? {
        CookieRules.headerValue(cookies(for: url, siteForCookies: siteForCookies, method: method, now: now, touching: true))
    }

    /// The cookies that go with a request to `url`, in the order they are sent (longer paths
    /// first, then older cookies first, then by name).
    public func cookies(
        for url: URL, siteForCookies: URL? = nil, method: HTTPRequest.Method = .get, now: Date = Date()
    ) -> [Cookie] {
        cookies(for: url, siteForCookies: siteForCookies, method: method, now: now, touching: false)
    }

    private func cookies(
        for url: URL, siteForCookies: URL?, method: HTTPRequest.Method, now: Date, touching: Bool
    ) -> [Cookie] {
        guard let host = url.host.map(CookieRules.canonicalDomain) else { return [] }
        return cookies.withLock { stored in
            let matching = CookieRules.select(
                from: stored.candidates(forHost: host), for: url, siteForCookies: siteForCookies, method: method, now: now,
                additionalPublicSuffixes: additionalPublicSuffixes)
            if touching {
                for cookie in matching { stored.touch(cookie.key, now: now) }
            }
            return matching
        }
    }

    // MARK: Managing cookies

    /// The stored cookies whose domain is `host` or one of its parent domains.
    func cookiesOfDomains(enclosing host: String) -> [Cookie] {
        cookies.withLock { $0.candidates(forHost: host) }
    }

    /// Every cookie stored, expired ones included until they are purged.
    public var allCookies: [Cookie] {
        cookies.withLock { Array($0.values) }.sorted { ($0.domain, $0.path, $0.name) < ($1.domain, $1.path, $1.name) }
    }

    /// Stores `cookie` as given (the `Set-Cookie` rules do not apply), replacing one with the
    /// same name, domain and path. An expired cookie deletes the stored one. A name or value
    /// that cannot go in a `Cookie` field (empty name, control characters, `;`) is an error.
    public func set(_ cookie: Cookie) throws(CurlewError) {
        guard CookieRules.isSendable(name: cookie.name, value: cookie.value) else {
            throw CurlewError(.invalidHeader, "the cookie \(cookie.name.debugDescription) has a name or value that cannot be sent")
        }
        cookies.withLock { $0.insert(cookie, now: Date()) }
    }

    /// Removes the cookies for which `shouldRemove` is true.
    public func removeCookies(where shouldRemove: (Cookie) -> Bool) {
        cookies.withLock { $0.removeAll(where: shouldRemove) }
    }

    /// Removes every cookie.
    public func removeAll() {
        cookies.withLock { $0.removeAll() }
    }

    /// Removes expired cookies.
    public func removeExpired(now: Date = Date()) {
        removeCookies { $0.isExpired(at: now) }
    }

    /// Removes session cookies (those without an expiry), as when a browser closes.
    public func removeSessionCookies() {
        removeCookies(where: \.isSessionCookie)
    }

    // MARK: Persistence

    private struct FileContents: Codable {
        var format = "curlew-cookies"
        var version = 1
        var cookies: [Cookie]
    }

    /// Writes the unexpired cookies to `fileURL` as JSON, atomically (a reader sees the old file
    /// or the new one), and readable by the owner only from the moment the file exists. A link
    /// at `fileURL` is replaced, not followed. Session cookies are left out unless
    /// `includingSessionCookies` is true.
    public func save(to fileURL: URL, includingSessionCookies: Bool = false, now: Date = Date()) throws(CurlewError) {
        let kept = allCookies.filter { !$0.isExpired(at: now) && (includingSessionCookies || !$0.isSessionCookie) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        let data: Data
        do {
            data = try encoder.encode(FileContents(cookies: kept))
        } catch {
            throw CurlewError(.fileSystem, "could not encode the cookies: \(error)", url: fileURL, underlying: error)
        }
        try PrivateFile.save(data, to: fileURL, what: "the cookie file")
    }

    /// Adds the cookies of a file written by ``save(to:includingSessionCookies:now:)``, replacing
    /// stored cookies with the same name, domain and path. Expired cookies are skipped.
    ///
    /// The file must be a regular file of this user's, of at most 64 MiB, and every cookie in it
    /// one that a server could have set: a name and value that can be sent, a domain that is not
    /// a public suffix unless the cookie is host-only, sizes and prefixes within the rules.
    /// Anything else is an error, and nothing is added.
    public func load(from fileURL: URL, now: Date = Date()) throws(CurlewError) {
        guard let data = try PrivateFile.contents(of: fileURL, what: "the cookie file", maximumSize: PrivateFile.maximumCookieFileSize) else {
            throw CurlewError(.fileSystem, "could not read the cookie file: it does not exist", url: fileURL)
        }
        try load(data, from: fileURL, now: now)
    }

    private func load(_ data: Data, from fileURL: URL, now: Date) throws(CurlewError) {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        let contents: FileContents
        do {
            contents = try decoder.decode(FileContents.self, from: data)
        } catch {
            throw CurlewError(.fileSystem, "the cookie file is not valid: \(error)", url: fileURL, underlying: error)
        }
        guard contents.format == "curlew-cookies", contents.version == 1 else {
            throw CurlewError(
                .fileSystem, "the cookie file has format \(contents.format) version \(contents.version), expected curlew-cookies 1",
                url: fileURL)
        }
        for cookie in contents.cookies {
            if let problem = CookieRules.problemWithStoredCookie(cookie, additionalPublicSuffixes: additionalPublicSuffixes) {
                throw CurlewError(
                    .fileSystem, "the cookie file holds a cookie \(cookie.name.debugDescription) no server could set: \(problem)",
                    url: fileURL)
            }
        }
        cookies.withLock { stored in
            for loaded in contents.cookies where !loaded.isExpired(at: now) {
                // Through the initializer, so that the domain and path are canonical.
                let cookie = Cookie(
                    name: loaded.name, value: loaded.value, domain: loaded.domain, path: loaded.path,
                    expiresAt: loaded.expiresAt, isSecure: loaded.isSecure, isHTTPOnly: loaded.isHTTPOnly,
                    isHostOnly: loaded.isHostOnly, sameSite: loaded.sameSite, createdAt: loaded.createdAt,
                    lastAccessAt: loaded.lastAccessAt)
                stored.insert(cookie, now: now, keepingTimes: true)
            }
        }
    }
}
