import Foundation
import HTTPTypes
import Synchronization

/// An RFC 6265 cookie store, safe to share between sessions and threads.
///
/// ```swift
/// let jar = try CookieJar(contentsOf: cookiesFile)      // or CookieJar() in memory
/// var configuration = SessionConfiguration()
/// configuration.cookieJar = jar
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
/// (extend it with `additionalPublicSuffixes`). At most 50 cookies per domain and 3000 in all
/// are kept; the least recently used go first.
///
/// All methods are synchronous and thread-safe: the engine calls them on its I/O thread, so
/// they only touch memory. Persist with ``save(to:includingSessionCookies:now:)``.
public final class CookieJar: Sendable {
    /// Cookies kept per domain before the least recently used are dropped.
    public static let maximumCookiesPerDomain = 50
    /// Cookies kept in all before the least recently used are dropped.
    public static let maximumCookies = 3000

    /// Extra public suffixes (such as `"corp.example"`) for which no cookie may be set.
    public let additionalPublicSuffixes: Set<String>
    private let cookies = Mutex<[CookieKey: Cookie]>([:])

    /// An empty jar in memory.
    public init(additionalPublicSuffixes: Set<String> = []) {
        self.additionalPublicSuffixes = Set(additionalPublicSuffixes.map(CookieRules.canonicalDomain))
    }

    /// A jar loaded from a file written by ``save(to:includingSessionCookies:now:)``. A missing
    /// file gives an empty jar; an unreadable or malformed one is an error.
    public convenience init(contentsOf fileURL: URL, additionalPublicSuffixes: Set<String> = []) throws(CurlewError) {
        self.init(additionalPublicSuffixes: additionalPublicSuffixes)
        if FileManager.default.fileExists(atPath: fileURL.path) { try load(from: fileURL) }
    }

    // MARK: The HTTP side

    /// Stores the `Set-Cookie` fields of a response to `url`.
    public func storeCookies(from head: HTTPResponse, for url: URL, now: Date = Date()) {
        let fields = head.headerFields[values: .setCookie]
        if !fields.isEmpty { storeCookies(setCookieFields: fields, for: url, now: now) }
    }

    /// Stores the cookies of `Set-Cookie` field values received from `url`; invalid or unsafe
    /// ones are ignored, as RFC 6265 requires. An expired cookie deletes the stored one.
    public func storeCookies(setCookieFields: [String], for url: URL, now: Date = Date()) {
        let parsed = SetCookieParser.cookies(from: setCookieFields, for: url, now: now, publicSuffixes: additionalPublicSuffixes)
        guard !parsed.isEmpty else { return }
        cookies.withLock { stored in
            for cookie in parsed { Self.insert(cookie, into: &stored, now: now) }
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
    public func cookieHeader(
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
        cookies.withLock { stored in
            let matching = CookieRules.select(
                from: stored.values, for: url, siteForCookies: siteForCookies, method: method, now: now,
                additionalPublicSuffixes: additionalPublicSuffixes)
            if touching {
                for cookie in matching { stored[cookie.key]?.lastAccessAt = now }
            }
            return matching
        }
    }

    // MARK: Managing cookies

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
        cookies.withLock { Self.insert(cookie, into: &$0, now: Date()) }
    }

    /// Removes the cookies for which `shouldRemove` is true.
    public func removeCookies(where shouldRemove: (Cookie) -> Bool) {
        cookies.withLock { stored in
            for (key, cookie) in stored where shouldRemove(cookie) { stored[key] = nil }
        }
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

    private static func insert(_ cookie: Cookie, into stored: inout [CookieKey: Cookie], now: Date) {
        let key = cookie.key
        if cookie.isExpired(at: now) {
            stored[key] = nil
            return
        }
        var cookie = cookie
        if let existing = stored[key] { cookie.createdAt = existing.createdAt }
        cookie.lastAccessAt = now
        stored[key] = cookie
        evict(from: &stored, domain: cookie.domain, now: now)
    }

    /// Drops expired cookies, then the least recently used, past the per-domain and total limits.
    private static func evict(from stored: inout [CookieKey: Cookie], domain: String, now: Date) {
        let sameDomain = stored.values.filter { $0.domain == domain }
        if sameDomain.count > maximumCookiesPerDomain {
            let victims = sameDomain.sorted { rank($0, now) < rank($1, now) }.prefix(sameDomain.count - maximumCookiesPerDomain)
            for victim in victims { stored[victim.key] = nil }
        }
        if stored.count > maximumCookies {
            let victims = stored.values.sorted { rank($0, now) < rank($1, now) }.prefix(stored.count - maximumCookies)
            for victim in victims { stored[victim.key] = nil }
        }
    }

    /// Expired cookies first, then by last access.
    private static func rank(_ cookie: Cookie, _ now: Date) -> (Int, Date) {
        (cookie.isExpired(at: now) ? 0 : 1, cookie.lastAccessAt)
    }

    // MARK: Persistence

    private struct FileContents: Codable {
        var format = "curlew-cookies"
        var version = 1
        var cookies: [Cookie]
    }

    /// Writes the unexpired cookies to `fileURL` as JSON, atomically and readable by the owner
    /// only. Session cookies are left out unless `includingSessionCookies` is true.
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
        let temporary = fileURL.deletingLastPathComponent()
            .appendingPathComponent(".\(fileURL.lastPathComponent).\(UUID().uuidString).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600])
        else {
            throw CurlewError(.fileSystem, "could not write the cookie file \(temporary.path)", url: fileURL)
        }
        guard rename(temporary.path, fileURL.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw CurlewError(.fileSystem, "could not move the cookie file into place: \(reason)", url: fileURL)
        }
    }

    /// Adds the cookies of a file written by ``save(to:includingSessionCookies:now:)``, replacing
    /// stored cookies with the same name, domain and path. Expired cookies are skipped.
    public func load(from fileURL: URL, now: Date = Date()) throws(CurlewError) {
        let data: Data
        do {
            data = try Data(contentsOf: fileURL)
        } catch {
            throw CurlewError(.fileSystem, "could not read the cookie file: \(error)", url: fileURL, underlying: error)
        }
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
        for cookie in contents.cookies where !CookieRules.isSendable(name: cookie.name, value: cookie.value) {
            throw CurlewError(
                .fileSystem, "the cookie file holds a cookie whose name or value cannot be sent: \(cookie.name.debugDescription)",
                url: fileURL)
        }
        cookies.withLock { stored in
            for loaded in contents.cookies where !loaded.isExpired(at: now) {
                // Through the initializer, so that the domain and path are canonical.
                let cookie = Cookie(
                    name: loaded.name, value: loaded.value, domain: loaded.domain, path: loaded.path,
                    expiresAt: loaded.expiresAt, isSecure: loaded.isSecure, isHTTPOnly: loaded.isHTTPOnly,
                    isHostOnly: loaded.isHostOnly, sameSite: loaded.sameSite, createdAt: loaded.createdAt,
                    lastAccessAt: loaded.lastAccessAt)
                stored[cookie.key] = cookie
                Self.evict(from: &stored, domain: cookie.domain, now: now)
            }
        }
    }
}
