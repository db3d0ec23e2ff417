import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

@Suite("Cookies through sessions, at every redirect hop")
struct CookieNetworkTests {
    struct CookieEcho: Decodable { let cookies: [String: String] }

    func session(with jar: CookieJar?) -> Session {
        var configuration = SessionConfiguration()
        configuration.cookieStorage = jar
        return Session(configuration: configuration)
    }

    @Test func cookieSetByA302IsSentOnTheNextHopAndKept() async throws {
        let server = try await Fixtures.server()
        let jar = CookieJar()
        let session = session(with: jar)
        defer { Task { await session.shutdown() } }
        let response = try await session.request(server.url("/cookies/set?flavor=oat&count=3")).validate().response
        #expect(response.redirects.count == 1)
        #expect(try JSONDecoder().decode(CookieEcho.self, from: response.value).cookies == ["flavor": "oat", "count": "3"])
        #expect(Set(jar.allCookies.map(\.name)) == ["flavor", "count"])
        #expect(jar.allCookies.allSatisfy { $0.domain == "127.0.0.1" && $0.isHostOnly })

        let later = try await session.request(server.url("/cookies")).decode(CookieEcho.self)
        #expect(later.cookies == ["flavor": "oat", "count": "3"])

        let deleted = try await session.request(server.url("/cookies/delete?flavor")).decode(CookieEcho.self)
        #expect(deleted.cookies == ["count": "3"], "the expiring Set-Cookie of the 302 removed it before the next hop")
        #expect(jar.allCookies.map(\.name) == ["count"])
    }

    @Test func withoutAJarNothingIsStoredOrSent() async throws {
        let server = try await Fixtures.server()
        let session = session(with: nil)
        defer { Task { await session.shutdown() } }
        let echo = try await session.request(server.url("/cookies/set?plain=1")).decode(CookieEcho.self)
        #expect(echo.cookies.isEmpty)
    }

    @Test func aJarIsSharedBetweenSessionsAndMergesWithExplicitCookies() async throws {
        let server = try await Fixtures.server()
        let jar = CookieJar()
        let first = session(with: jar)
        let second = session(with: jar)
        defer { Task { await first.shutdown(); await second.shutdown() } }
        _ = try await first.request(server.url("/cookies/set?shared=yes")).data()
        let echo = try await second.request(server.url("/cookies"), headers: ["Cookie": "mine=1"]).decode(CookieEcho.self)
        #expect(echo.cookies == ["mine": "1", "shared": "yes"])
    }

    @Test func crossHostHopsGetOnlyTheirOwnCookies() async throws {
        let seen = Recorder<String>()
        let server = try await ScriptedHTTPServer.start { request in
            seen.append("\(request.hostName) \(request.path) [\(request.header("Cookie") ?? "")]")
            switch request.path {
            case "/hop":
                return ScriptedResponse(
                    status: 302,
                    headers: [("Set-Cookie", "origin=ip; Path=/"), ("Location", request.query["to"] ?? "/")])
            default:
                return .text(request.header("Cookie") ?? "")
            }
        }
        defer { Task { await server.shutdown() } }
        let jar = CookieJar()
        try jar.set(Cookie(name: "pre", value: "named-host", domain: "localhost"))
        let session = session(with: jar)
        defer { Task { await session.shutdown() } }
        let target = server.localhostURL("/echo").absoluteString
        let onLocalhost = try await session.request(
            server.url("/hop?to=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"),
            headers: ["Cookie": "explicit=dropped-across-hosts"]
        ).string()
        #expect(onLocalhost == "pre=named-host", "the 127.0.0.1 cookie and the explicit one stay behind")
        let onIP = try await session.request(server.url("/echo")).string()
        #expect(onIP == "origin=ip")
        #expect(seen.all.first == "127.0.0.1 /hop [explicit=dropped-across-hosts]")
    }

    @Test func cookiesPersistAcrossJars() async throws {
        let server = try await Fixtures.server()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-jar-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let jar = CookieJar()
        let session = session(with: jar)
        defer { Task { await session.shutdown() } }
        _ = try await session.request(server.url("/response-headers?Set-Cookie=kept%3D1%3B%20Max-Age%3D600")).data()
        try jar.save(to: file)
        let restored = try CookieJar(contentsOf: file)
        let other = self.session(with: restored)
        defer { Task { await other.shutdown() } }
        let echo = try await other.request(server.url("/cookies")).decode(CookieEcho.self)
        #expect(echo.cookies == ["kept": "1"])
    }
}
