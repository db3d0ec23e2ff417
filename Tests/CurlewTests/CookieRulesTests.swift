@testable import Curlew
import Foundation
import HTTPTypes
import Testing

@Suite("Cookie parsing and matching rules (RFC 6265, no network)")
struct CookieRulesTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    func parse(_ field: String, from url: String) -> SetCookieParser.Outcome {
        SetCookieParser.parse(field, from: URL(string: url)!, now: now)
    }

    func stored(_ field: String, from url: String) -> Cookie? {
        if case .store(let cookie) = parse(field, from: url) { return cookie }
        return nil
    }

    @Test func nameValueHostOnlyAndDefaultPath() throws {
        let cookie = try #require(stored(" sid = abc123 ; HttpOnly", from: "http://www.example.com/app/login?x=1"))
        #expect(cookie.name == "sid")
        #expect(cookie.value == "abc123")
        #expect(cookie.domain == "www.example.com")
        #expect(cookie.isHostOnly)
        #expect(cookie.path == "/app", "the default path is the directory of the request path")
        #expect(cookie.isHTTPOnly)
        #expect(cookie.isSessionCookie)
        #expect(stored("a=1", from: "http://example.com")?.path == "/")
        #expect(stored("a=1; Path=relative", from: "http://example.com/x/y")?.path == "/x", "an invalid Path means the default path")
        #expect(stored("=nameless", from: "http://example.com") == nil)
        #expect(stored("novalue", from: "http://example.com") == nil)
        #expect(stored("a=b\u{01}c", from: "http://example.com") == nil, "control characters are rejected")
        #expect(stored("a=" + String(repeating: "x", count: 5000), from: "http://example.com") == nil)
    }

    @Test func domainAttributeAndPublicSuffixes() throws {
        let cookie = try #require(stored("a=1; Domain=.Example.COM", from: "http://shop.example.com/"))
        #expect(cookie.domain == "example.com")
        #expect(!cookie.isHostOnly)
        #expect(cookie.matches(URL(string: "http://example.com/")!))
        #expect(cookie.matches(URL(string: "http://deep.shop.example.com/")!))
        #expect(!cookie.matches(URL(string: "http://notexample.com/")!))

        #expect(stored("a=1; Domain=other.com", from: "http://example.com/") == nil)
        #expect(stored("a=1; Domain=shop.example.com", from: "http://example.com/") == nil, "a parent cannot set for a child")
        for suffix in ["com", "co.uk", "github.io", "herokuapp.com"] {
            guard case .ignore(let reason) = parse("a=1; Domain=\(suffix)", from: "https://victim.\(suffix)/") else {
                Issue.record("Domain=\(suffix) must be refused")
                continue
            }
            #expect(reason.contains("public suffix"))
        }
        // A public suffix that is the host itself becomes a host-only cookie.
        let local = try #require(stored("a=1; Domain=localhost", from: "http://localhost:8080/"))
        #expect(local.isHostOnly)
        #expect(local.domain == "localhost")
        // Extra suffixes from the caller.
        guard case .ignore = SetCookieParser.parse(
            "a=1; Domain=corp.example", from: URL(string: "http://a.corp.example/")!, now: now,
            publicSuffixes: ["corp.example"])
        else {
            Issue.record("an additional public suffix must be refused")
            return
        }
        #expect(PublicSuffixes.registrableDomain(of: "a.b.example.co.uk") == "example.co.uk")
        #expect(PublicSuffixes.registrableDomain(of: "co.uk") == nil)
        #expect(PublicSuffixes.registrableDomain(of: "127.0.0.1") == "127.0.0.1")
    }

    @Test func ipAddressesDoNotDomainMatch() {
        #expect(CookieRules.domainMatches("127.0.0.1", "127.0.0.1"))
        #expect(!CookieRules.domainMatches("10.0.0.1", "0.0.1"), "no suffix matching for IP addresses")
        #expect(stored("a=1; Domain=0.0.1", from: "http://127.0.0.1/") == nil)
    }

    @Test func expiresMaxAgeAndTheirPrecedence() throws {
        let expires = try #require(stored("a=1; Expires=Wed, 15 Nov 2023 22:13:20 GMT", from: "http://e.com/"))
        #expect(expires.expiresAt == now.addingTimeInterval(86_400))
        let maxAge = try #require(stored("a=1; Max-Age=60; Expires=Wed, 15 Nov 2023 22:13:20 GMT", from: "http://e.com/"))
        #expect(maxAge.expiresAt == now.addingTimeInterval(60), "Max-Age wins whatever the order")
        let zero = try #require(stored("a=1; Max-Age=0", from: "http://e.com/"))
        #expect(zero.isExpired(at: now))
        let negative = try #require(stored("a=1; Max-Age=-5", from: "http://e.com/"))
        #expect(negative.isExpired(at: now))
        let bogus = try #require(stored("a=1; Max-Age=12abc; Expires=garbage", from: "http://e.com/"))
        #expect(bogus.isSessionCookie, "invalid attributes are ignored")
        let far = try #require(stored("a=1; Max-Age=999999999999999999999", from: "http://e.com/"))
        #expect(far.expiresAt == now.addingTimeInterval(400 * 86_400), "capped at 400 days")
    }

    @Test func cookieDates() {
        func date(_ text: String) -> TimeInterval? { CookieDateParser.parse(text)?.timeIntervalSince1970 }
        #expect(date("Tue, 14 Nov 2023 22:13:20 GMT") == 1_700_000_000)
        #expect(date("Tuesday, 14-Nov-23 22:13:20 GMT") == 1_700_000_000)
        #expect(date("Tue Nov 14 22:13:20 2023") == 1_700_000_000)
        #expect(date("14 nov 2023 22:13:20") == 1_700_000_000)
        #expect(date("Thu, 01 Jan 1970 00:00:00 GMT") == 0)
        #expect(date("Sat, 01 Jan 69 00:00:00 GMT") == date("Tue, 01 Jan 2069 00:00:00 GMT"), "two-digit years below 70 are 20xx")
        #expect(date("Fri, 30 Feb 2024 00:00:00 GMT") == nil, "no such day")
        #expect(date("Thu, 29 Feb 2024 00:00:00 GMT") != nil, "leap day")
        #expect(date("Mon, 01 Jan 1600 00:00:00 GMT") == nil)
        #expect(date("Tue, 14 Nov 2023 25:13:20 GMT") == nil)
        #expect(date("yesterday") == nil)
        #expect(date("") == nil)
    }

    @Test func secureCookiesNeedASecureChannel() throws {
        #expect(stored("a=1; Secure", from: "http://example.com/") == nil)
        let secure = try #require(stored("a=1; Secure", from: "https://example.com/"))
        #expect(secure.matches(URL(string: "https://example.com/")!))
        #expect(!secure.matches(URL(string: "http://example.com/")!))
        // Loopback counts as secure, as in browsers.
        let local = try #require(stored("a=1; Secure", from: "http://127.0.0.1:8080/"))
        #expect(local.matches(URL(string: "http://127.0.0.1:9000/")!))
    }

    @Test func prefixesAndSameSiteNone() {
        #expect(stored("__Secure-a=1", from: "https://e.com/") == nil)
        #expect(stored("__Secure-a=1; Secure", from: "https://e.com/") != nil)
        #expect(stored("__Host-a=1; Secure; Path=/; Domain=e.com", from: "https://e.com/") == nil)
        #expect(stored("__Host-a=1; Secure; Path=/docs", from: "https://e.com/") == nil)
        #expect(stored("__Host-a=1; Secure; Path=/", from: "https://e.com/") != nil)
        #expect(stored("a=1; SameSite=None", from: "https://e.com/") == nil)
        #expect(stored("a=1; SameSite=None; Secure", from: "https://e.com/")?.sameSite == Cookie.SameSite.noRestriction)
        #expect(stored("a=1; SameSite=lax", from: "https://e.com/")?.sameSite == .lax)
        #expect(stored("a=1; SameSite=weird", from: "https://e.com/")?.sameSite == nil)
    }

    @Test func pathMatching() {
        #expect(CookieRules.pathMatches("/docs", "/docs"))
        #expect(CookieRules.pathMatches("/docs/", "/docs"))
        #expect(CookieRules.pathMatches("/docs/web", "/docs"))
        #expect(CookieRules.pathMatches("/docs/web", "/docs/"))
        #expect(!CookieRules.pathMatches("/docsets", "/docs"))
        #expect(!CookieRules.pathMatches("/", "/docs"))
        #expect(CookieRules.defaultPath(of: URL(string: "http://e.com/a/b/c")!) == "/a/b")
        #expect(CookieRules.defaultPath(of: URL(string: "http://e.com/a")!) == "/")
    }

    @Test func jarOrdersBySpecificityAndAppliesSameSite() throws {
        let jar = CookieJar()
        let site = URL(string: "https://app.example.com/docs/page")!
        let fields = ["root=1; Path=/", "docs=2; Path=/docs", "strict=3; SameSite=Strict; Path=/", "lax=4; SameSite=Lax; Path=/"]
        for (offset, field) in fields.enumerated() {
            jar.storeCookies(setCookieFields: [field], for: site, now: now.addingTimeInterval(Double(offset)))
        }
        #expect(jar.cookieHeader(for: site, now: now) == "docs=2; root=1; strict=3; lax=4")
        let other = URL(string: "https://elsewhere.org/")!
        let fromOtherSite = jar.cookieHeader(for: site, siteForCookies: other, method: .get, now: now)
        #expect(fromOtherSite == "docs=2; root=1; lax=4", "Strict is withheld cross-site, Lax goes with GET")
        let crossPost = jar.cookieHeader(for: site, siteForCookies: other, method: .post, now: now)
        #expect(crossPost == "docs=2; root=1")
        let sameSite = jar.cookieHeader(for: site, siteForCookies: URL(string: "https://www.example.com/")!, method: .post, now: now)
        #expect(sameSite?.contains("strict=3") == true, "a subdomain of the same registrable domain is same-site")
    }

    @Test func replacingDeletingAndEviction() throws {
        let jar = CookieJar()
        let url = URL(string: "http://e.com/")!
        jar.storeCookies(setCookieFields: ["a=1"], for: url, now: now)
        jar.storeCookies(setCookieFields: ["a=2"], for: url, now: now.addingTimeInterval(1))
        #expect(jar.allCookies.count == 1)
        #expect(jar.allCookies.first?.value == "2")
        #expect(jar.allCookies.first?.createdAt == now, "a replaced cookie keeps its creation time")
        jar.storeCookies(setCookieFields: ["a=gone; Max-Age=0"], for: url, now: now)
        #expect(jar.allCookies.isEmpty)

        for index in 0..<60 {
            jar.storeCookies(setCookieFields: ["c\(index)=v"], for: url, now: now.addingTimeInterval(Double(index)))
        }
        let names = Set(jar.allCookies.map(\.name))
        #expect(names.count == CookieJar.maximumCookiesPerDomain)
        #expect(!names.contains("c0") && names.contains("c59"), "the least recently used go first")

        #expect(throws: CurlewError.self) { try jar.set(Cookie(name: "bad\r\nname", value: "x", domain: "e.com")) }
        #expect(throws: CurlewError.self) { try jar.set(Cookie(name: "ok", value: "a;b", domain: "e.com")) }
        try jar.set(Cookie(name: "manual", value: "yes", domain: "e.com"))
        #expect(jar.cookieHeader(for: url)?.contains("manual=yes") == true)
        jar.removeAll()
        #expect(jar.allCookies.isEmpty)
    }

    @Test func expiredCookiesAreNotSent() {
        let jar = CookieJar()
        let url = URL(string: "http://e.com/")!
        jar.storeCookies(setCookieFields: ["short=1; Max-Age=10"], for: url, now: now)
        jar.storeCookies(setCookieFields: ["long=2; Max-Age=1000"], for: url, now: now.addingTimeInterval(1))
        #expect(jar.cookieHeader(for: url, now: now.addingTimeInterval(5)) == "short=1; long=2")
        #expect(jar.cookieHeader(for: url, now: now.addingTimeInterval(20)) == "long=2")
        jar.removeExpired(now: now.addingTimeInterval(20))
        #expect(jar.allCookies.map(\.name) == ["long"])
    }

    @Test func persistsToAFileAndLoadsBack() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-cookies-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cookies.json")
        let jar = CookieJar()
        let url = URL(string: "https://shop.example.com/cart")!
        jar.storeCookies(
            setCookieFields: ["persistent=1; Max-Age=3600; Domain=example.com; Secure; HttpOnly; SameSite=Lax", "session=2"],
            for: url)
        try jar.save(to: file)
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600, "cookie files hold secrets")

        let loaded = try CookieJar(contentsOf: file)
        #expect(loaded.allCookies.map(\.name) == ["persistent"], "session cookies are not saved by default")
        let cookie = try #require(loaded.allCookies.first)
        #expect(cookie.domain == "example.com" && !cookie.isHostOnly && cookie.isSecure && cookie.isHTTPOnly)
        #expect(cookie.sameSite == .lax)
        #expect(loaded.cookieHeader(for: URL(string: "https://www.example.com/")!) == "persistent=1")

        try jar.save(to: file, includingSessionCookies: true)
        #expect(try CookieJar(contentsOf: file).allCookies.count == 2)

        let missing = try CookieJar(contentsOf: directory.appendingPathComponent("none.json"))
        #expect(missing.allCookies.isEmpty)
        let corrupt = directory.appendingPathComponent("corrupt.json")
        try Data("not json".utf8).write(to: corrupt)
        #expect(throws: CurlewError.self) { try CookieJar(contentsOf: corrupt) }
        let injected = directory.appendingPathComponent("injected.json")
        try Data(#"{"format":"curlew-cookies","version":1,"cookies":[{"name":"a","value":"x\r\nEvil: 1","domain":"e.com","path":"/","isSecure":false,"isHTTPOnly":false,"isHostOnly":true,"createdAt":0,"lastAccessAt":0}]}"#.utf8).write(to: injected)
        #expect(throws: CurlewError.self) { try CookieJar(contentsOf: injected) }
    }

    @Test func jarIsSafeUnderConcurrentUse() async {
        let jar = CookieJar()
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    let url = URL(string: "http://host\(worker).test/")!
                    for index in 0..<200 {
                        jar.storeCookies(setCookieFields: ["k\(index % 20)=\(index)"], for: url)
                        _ = jar.cookieHeader(for: url)
                    }
                }
            }
        }
        #expect(jar.allCookies.count == 8 * 20)
    }
}
