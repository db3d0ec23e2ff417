@testable import Curlew
import Foundation
import Synchronization
import Testing
import TestServer

/// A storage of one's own (HTTPTransport's cookie provider and store): what Curlew hands it,
/// what it sends from it, and the Public Suffix List from libpsl.
@Suite("Cookie storage of one's own, response cookies, public suffixes")
struct CookieStorageTests {
    /// A storage as a database-backed one would look: a plain list by identity, which returns
    /// every cookie it has whatever the host, so that Curlew's own matching is what decides.
    final class ListStorage: CookieStorage {
        let stored = Mutex<[Cookie]>([])
        let received = Mutex<[(URL, [String])]>([])

        func cookies(forHost host: String) -> [Cookie] { stored.withLock { $0 } }

        func store(_ cookies: [Cookie], receivedFrom url: URL) {
            received.withLock { $0.append((url, cookies.map(\.name))) }
            stored.withLock { list in
                for cookie in cookies {
                    list.removeAll { $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path }
                    if !cookie.isExpired(at: Date()) { list.append(cookie) }
                }
            }
        }
    }

    @Test func aStorageOfOnesOwnReceivesParsedCookiesAndCurlewPicksWhatGoesOut() async throws {
        let server = try await Fixtures.server()
        let storage = ListStorage()
        // Cookies Curlew must not send: another host, a path elsewhere, Secure over http, expired.
        storage.stored.withLock {
            $0 = [
                Cookie(name: "other", value: "1", domain: "example.com"),
                Cookie(name: "deep", value: "1", domain: "127.0.0.1", path: "/elsewhere"),
                Cookie(name: "secure", value: "1", domain: "127.0.0.2", isSecure: true),
                Cookie(name: "old", value: "1", domain: "127.0.0.1", expiresAt: Date(timeIntervalSinceNow: -60)),
            ]
        }
        var configuration = SessionConfiguration()
        configuration.cookieStorage = storage
        let session = Session(configuration: configuration)
        // /cookies/set answers 302 with Set-Cookie, then /cookies echoes what arrived.
        let echoed = try await session.request(server.url("/cookies/set?b=2&a=1")).decode([String: [String: String]].self)
        #expect(echoed["cookies"] == ["a": "1", "b": "2"])
        let received = storage.received.withLock { $0 }
        #expect(received.count == 1)
        #expect(received.first?.0.path == "/cookies/set")
        #expect(Set(received.first?.1 ?? []) == ["a", "b"])
        #expect(configuration.cookieStorage as? CookieJar == nil, "a storage that is not a jar is not a jar")

        let echo = try Fixtures.echo(try await session.request(server.url("/anything/jar")).data())
        #expect(echo.headerLines(named: "cookie").count == 1)
        let sent = Set((echo.headerLines(named: "cookie").first ?? "").components(separatedBy: "; "))
        #expect(sent == ["a=1", "b=2"])

        // A deletion reaches the storage as an expired cookie.
        _ = try await session.request(server.url("/cookies/delete?a")).data()
        #expect(storage.stored.withLock { $0.map(\.name) }.contains("a") == false)
        await session.shutdown()
    }

    @Test func aJarIsTheDefaultStorage() {
        var configuration = SessionConfiguration()
        let jar = CookieJar()
        configuration.cookieStorage = jar
        #expect(configuration.cookieStorage as? CookieJar === jar)
        configuration.cookieStorage = nil
        #expect(configuration.cookieStorage == nil)
    }

    @Test func theJarAnswersByHostAndStoresParsedCookies() throws {
        let jar = CookieJar()
        let url = try #require(URL(string: "https://www.example.com/a"))
        jar.store([Cookie(name: "x", value: "1", domain: "example.com", isHostOnly: false)], receivedFrom: url)
        jar.store([Cookie(name: "y", value: "1", domain: "other.org")], receivedFrom: url)
        #expect(jar.cookies(forHost: "www.example.com").map(\.name) == ["x"])
        #expect(jar.cookies(forHost: "example.com").map(\.name) == ["x"])
        #expect(jar.cookies(forHost: "ample.com").isEmpty)
        jar.store([Cookie(name: "x", value: "", domain: "example.com", expiresAt: Date(timeIntervalSince1970: 0), isHostOnly: false)], receivedFrom: url)
        #expect(jar.cookies(forHost: "www.example.com").isEmpty)
    }

    @Test func aResponseListsTheCookiesItSet() async throws {
        let server = try await Fixtures.server()
        var options = RequestOptions()
        options.redirectPolicy = RedirectPolicy.doNotFollow
        let response = try await Fixtures.session.request(server.url("/cookies/set?theme=dark&lang=en"), options: options).response
        #expect(response.status.code == 302)
        #expect(Set(response.cookies.map { "\($0.name)=\($0.value)" }) == ["theme=dark", "lang=en"])
        #expect(response.cookies.allSatisfy { $0.domain == "127.0.0.1" && $0.path == "/" })
        let deleted = try await Fixtures.session.request(server.url("/cookies/delete?theme"), options: options).response
        #expect(deleted.cookies.map(\.name) == ["theme"])
        #expect(deleted.cookies.first?.isExpired(at: Date()) == true)
    }

    // MARK: The Public Suffix List

    @Test func suffixesComeFromLibpsl() throws {
        let list = try #require(PublicSuffixes.list, "libpsl loaded no data")
        print("Public Suffix List: \(list.summary)")
        // Not in the old built-in subset, in the real list:
        #expect(PublicSuffixes.isPublicSuffix("kyoto.jp"))
        #expect(PublicSuffixes.isPublicSuffix("uk.com"))
        #expect(PublicSuffixes.isPublicSuffix("pvt.k12.ma.us"))
        #expect(!PublicSuffixes.subset.contains("kyoto.jp"))
        // Wildcard and exception rules: *.ck is public, !www.ck is not.
        #expect(PublicSuffixes.isPublicSuffix("anything.ck"))
        #expect(!PublicSuffixes.isPublicSuffix("www.ck"))
        // The default rule: an unlisted top-level name is a suffix; registrable names are not.
        #expect(PublicSuffixes.isPublicSuffix("localhost"))
        #expect(!PublicSuffixes.isPublicSuffix("example.com"))
        #expect(PublicSuffixes.registrableDomain(of: "a.b.city.kyoto.jp") == "city.kyoto.jp")
        // The caller's own suffixes still count.
        #expect(PublicSuffixes.isPublicSuffix("corp.example", additional: ["corp.example"]))
    }

    @Test func aCookieForASuffixOnlyTheFullListKnowsIsRefused() throws {
        let jar = CookieJar()
        let url = try #require(URL(string: "https://shop.kyoto.jp/"))
        jar.storeCookies(setCookieFields: ["wide=1; Domain=kyoto.jp", "own=1; Domain=shop.kyoto.jp"], for: url)
        #expect(jar.allCookies.map(\.name) == ["own"])
    }
}
