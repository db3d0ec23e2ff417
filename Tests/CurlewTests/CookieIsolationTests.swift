@testable import Curlew
import Foundation
import Testing
import TestServer

/// Who else receives a session's cookies — another user of the session, another port, another
/// site in a redirect chain — and what hostile servers and concurrent requests can make the
/// storage do: grow, forget other sites' cookies, or tear.
@Suite("Cookie storage: users, ports, sites, limits and races")
struct CookieIsolationTests {
    struct CookieEcho: Decodable { let cookies: [String: String] }

    /// A server acting for many users with one session gives each user's requests that user's
    /// storage: nobody's cookies go with another's requests, and the session's storage (here
    /// holding a cookie of its own) is neither read nor changed.
    @Test func aStoragePerRequestKeepsUsersApart() async throws {
        let server = try await Fixtures.server()
        let shared = CookieJar()
        var configuration = SessionConfiguration()
        configuration.cookieStorage = shared
        try await withSession(configuration: configuration) { session in
            _ = try await session.request(server.url("/cookies/set?shared=session")).data()
            let users = (0..<8).map { "user\($0)" }
            let jars = Dictionary(uniqueKeysWithValues: users.map { ($0, CookieJar()) })
            try await withThrowingTaskGroup(of: Void.self) { group in
                for user in users {
                    group.addTask {
                        var options = RequestOptions()
                        options.cookieStorage = .storage(jars[user]!)
                        // Logging in sets the session cookie on a 302; the next hop already carries it.
                        let login = try await session.request(server.url("/cookies/set?sid=\(user)"), options: options)
                            .decode(CookieEcho.self)
                        #expect(login.cookies == ["sid": user])
                        let later = try await session.request(server.url("/cookies"), options: options).decode(CookieEcho.self)
                        #expect(later.cookies == ["sid": user], "only \(user)'s own cookie")
                    }
                }
                try await group.waitForAll()
            }
            for user in users { #expect(jars[user]!.allCookies.map(\.value) == [user]) }
            #expect(shared.allCookies.map { "\($0.name)=\($0.value)" } == ["shared=session"], "the session's jar is untouched")

            // No storage at all for a request: nothing is sent from one, nothing is stored.
            var none = RequestOptions()
            none.cookieStorage = .disabled
            let anonymous = try await session.request(server.url("/cookies/set?tracker=1"), options: none).decode(CookieEcho.self)
            #expect(anonymous.cookies.isEmpty, "not even the cookie the 302 just set")
            #expect(shared.allCookies.map(\.name) == ["shared"])
            // Without an override, the session's storage as before.
            #expect(try await session.request(server.url("/cookies")).decode(CookieEcho.self).cookies == ["shared": "session"])
        }
    }

    /// Cookies do not isolate ports (RFC 6265 §8.5): a cookie set by one port of a host goes to
    /// every other port of that host, as in browsers. A session shared by services on one host
    /// shares their cookies; give each its own storage (``RequestOptions/cookieStorage``).
    @Test func cookiesGoToEveryPortOfTheirHost() async throws {
        let first = try await Fixtures.server()
        let second = try await TestServer.start()
        defer { Task { try? await second.shutdown() } }
        #expect(first.port != second.port)
        var configuration = SessionConfiguration()
        configuration.cookieStorage = CookieJar()
        try await withSession(configuration: configuration) { session in
            _ = try await session.request(first.url("/cookies/set?from=first")).data()
            let elsewhere = try await session.request(second.url("/cookies")).decode(CookieEcho.self)
            #expect(elsewhere.cookies == ["from": "first"])
            // A Cookie field of the request's own is another matter: it stays with its origin.
            let target = NamedHosts.encode(second.url("/anything/hop").absoluteString)
            let echo = try Fixtures.echo(
                try await session.request(first.url("/redirect-to?url=\(target)"), headers: ["Cookie": "mine=1"]).data())
            #expect(echo.headerLines(named: "cookie") == ["from=first"], "the storage's cookie for the host, not the caller's own")
        }
    }

    /// A redirect to another site carries that site's cookies, never the first site's, and
    /// withholds its `SameSite=Strict` ones (the request did not start on that site).
    @Test func aRedirectToAnotherSiteCarriesOnlyThatSitesCookiesAndNoStrictOnes() async throws {
        let server = try await Fixtures.server()
        let jar = CookieJar()
        try jar.set(Cookie(name: "plain", value: "1", domain: "localhost"))
        try jar.set(Cookie(name: "lax", value: "1", domain: "localhost", sameSite: .lax))
        try jar.set(Cookie(name: "strict", value: "1", domain: "localhost", sameSite: .strict))
        var configuration = SessionConfiguration()
        configuration.cookieStorage = jar
        try await withSession(configuration: configuration) { session in
            _ = try await session.request(server.url("/cookies/set?first=ip")).data()
            let target = NamedHosts.encode(server.localhostURL("/anything/hop").absoluteString)
            let hop = try Fixtures.echo(try await session.request(server.url("/redirect-to?url=\(target)")).data())
            #expect(hop.headerLines(named: "cookie") == ["plain=1; lax=1"])
            let direct = try Fixtures.echo(try await session.request(server.localhostURL("/anything/direct")).data())
            #expect(direct.headerLines(named: "cookie") == ["plain=1; lax=1; strict=1"])
        }
    }

    /// A hostile server with many subdomains fills the jar past its 3000 cookies: it evicts its
    /// own, never another site's.
    @Test func aServerFillingTheJarEvictsOnlyItsOwnCookies() async throws {
        let jar = CookieJar()
        try await withNamedHosts(storage: jar) { hosts in
            try await hosts.set(["sid=keep"], from: "http://bank.example")
            try await hosts.set(["pref=1; Domain=bank.example"], from: "http://www.bank.example")
            let fifty = (0..<50).map { "c\($0)=1" }
            for index in 0...61 {
                try await hosts.set(fifty, from: "http://s\(index).evil.example")
            }
            #expect(jar.allCookies.count == CookieJar.maximumCookies)
            #expect(try await hosts.cookieLine(at: "http://bank.example/anything") == "sid=keep; pref=1")
        }
        #expect(jar.allCookies.filter { $0.domain.hasSuffix("evil.example") }.count == CookieJar.maximumCookies - 2)
    }

    @Test func oneResponseKeepsAtMostFiftyCookiesPerDomain() async throws {
        let jar = CookieJar()
        try await withNamedHosts(storage: jar) { hosts in
            let set = try await hosts.set((0..<80).map { "c\($0)=\($0)" }, from: "http://many.example")
            #expect(set.count == 80)
        }
        #expect(jar.allCookies.count == CookieJar.maximumCookiesPerDomain)
    }

    /// Concurrent responses setting the same cookie: one of their values wins, whole; never
    /// two cookies of one name, a mix of values, or a lost neighbour.
    @Test func concurrentSetCookiesForOneNameLeaveOneWholeValue() async throws {
        let server = try await Fixtures.server()
        let jar = CookieJar()
        var configuration = SessionConfiguration()
        configuration.cookieStorage = jar
        try await withSession(configuration: configuration) { session in
            _ = try await session.request(server.url("/cookies/set?neighbour=stays")).data()
            let values = (0..<40).map { "v\($0)-" + String(repeating: "x", count: $0 * 20) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for value in values {
                    group.addTask { _ = try await session.request(server.url("/cookies/set?k=\(value)")).data() }
                }
                try await group.waitForAll()
            }
            let kept = jar.allCookies.filter { $0.name == "k" }
            #expect(kept.count == 1)
            #expect(values.contains(kept.first?.value ?? ""))
            let line = try Fixtures.echo(try await session.request(server.url("/anything/after")).data()).headerLines(named: "cookie")
            #expect(line.count == 1)
            #expect(Set(line.first?.components(separatedBy: "; ") ?? []) == ["neighbour=stays", "k=\(kept.first?.value ?? "")"])
        }
    }

    /// A storage of one's own that hands back a damaged cookie (CR LF in its value, from a
    /// tampered database) cannot add a header line: the value stays inside the `Cookie` field.
    @Test func aDamagedCookieFromAStorageCannotAddAHeaderLine() async throws {
        let server = try await Fixtures.server()
        let storage = CookieStorageTests.ListStorage()
        storage.stored.withLock { $0 = [Cookie(name: "a", value: "1\r\nX-Injected: yes", domain: "127.0.0.1")] }
        var configuration = SessionConfiguration()
        configuration.cookieStorage = storage
        try await withSession(configuration: configuration) { session in
            let echo = try Fixtures.echo(try await session.request(server.url("/anything/inject")).data())
            #expect(echo.headerLines(named: "x-injected").isEmpty)
            #expect(echo.headerLines(named: "cookie").count == 1)
        }
    }
}
