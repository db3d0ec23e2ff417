import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

@Suite("Redirects")
struct RedirectTests {
    let session = Fixtures.session

    @Test func followsRelativeAndAbsoluteChainsAndKeepsHistory() async throws {
        let server = try await Fixtures.server()
        let relative = try await session.request(server.url("/redirect/3")).validate().response
        #expect(relative.redirects.count == 3)
        #expect(relative.redirects.map(\.response.status.code).allSatisfy { $0 == 302 })
        #expect(relative.url.path == "/get")
        let absolute = try await session.request(server.url("/absolute-redirect/2")).validate().response
        #expect(absolute.redirects.count == 2)
        #expect(absolute.redirects.first?.from == server.url("/absolute-redirect/2"))
    }

    @Test func tooManyRedirectsAndLoops() async throws {
        let server = try await Fixtures.server()
        do {
            _ = try await session.request(server.url("/redirect-loop")).data()
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .tooManyRedirects)
        }
        var options = RequestOptions()
        options.redirectPolicy = .follow(maximum: 2)
        do {
            _ = try await session.request(server.url("/redirect/3"), options: options).data()
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .tooManyRedirects)
        }
    }

    @Test func noFollowDeliversThe3xx() async throws {
        let server = try await Fixtures.server()
        var options = RequestOptions()
        options.redirectPolicy = RedirectPolicy.doNotFollow
        let response = try await session.request(server.url("/redirect/1"), options: options).response
        #expect(response.status.code == 302)
        #expect(response.redirects.isEmpty)
        #expect(response.head.headerFields[.location] != nil)
    }

    @Test func customPolicyCanModifyStopOrReject() async throws {
        let server = try await Fixtures.server()
        var options = RequestOptions()
        options.redirectPolicy = .custom { _, next in
            var modified = next
            modified.headerFields[HTTPField.Name("X-Hop")!] = "added"
            return .follow(modified)
        }
        let echo = try Fixtures.echo(try await session.request(server.url("/redirect/1"), options: options).data())
        #expect(echo.headers["x-hop"] == "added")

        options.redirectPolicy = .custom { _, _ in .stop }
        #expect(try await session.request(server.url("/redirect/1"), options: options).response.status.code == 302)

        options.redirectPolicy = .custom { _, _ in .reject("not today") }
        do {
            _ = try await session.request(server.url("/redirect/1"), options: options).data()
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .redirectRejected)
            #expect(error.message.contains("not today"))
        }
    }

    @Test func crossHostDropsAuthorizationAndCookie() async throws {
        let server = try await Fixtures.server()
        let target = server.localhostURL("/anything").absoluteString
        let url = server.url("/redirect-to?url=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
        let headers = [
            "Authorization": "Bearer secret", "Proxy-Authorization": "Basic cHJveHk6cHc=", "Cookie": "session=1",
            "X-Other": "kept",
        ]
        let echo = try Fixtures.echo(try await session.request(url, headers: RequestHeaders(headers)).data())
        #expect(echo.url.contains("localhost"))
        #expect(echo.headers["authorization"] == nil)
        #expect(echo.headers["proxy-authorization"] == nil)
        #expect(echo.headers["cookie"] == nil)
        #expect(echo.headers["x-other"] == "kept")

        let sameHost = server.url("/redirect-to?url=%2Fanything")
        let kept = try Fixtures.echo(try await session.request(sameHost, headers: RequestHeaders(headers)).data())
        #expect(kept.headers["authorization"] == "Bearer secret")
        #expect(kept.headers["proxy-authorization"] == "Basic cHJveHk6cHc=")
        #expect(kept.headers["cookie"] == "session=1")
    }

    @Test func redirectToAnotherSchemeIsRefused() async throws {
        let server = try await Fixtures.server()
        do {
            _ = try await session.request(server.url("/redirect-to?url=file%3A%2F%2F%2Fetc%2Fpasswd")).data()
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .unsupportedScheme)
        }
    }

    @Test func methodRewritingFollowsRFC9110() async throws {
        let server = try await Fixtures.server()
        let see = try Fixtures.echo(try await session.request(server.url("/redirect-to?url=%2Fanything&status_code=303"), method: .post, body: .string("x")).data())
        #expect(see.method == "GET")
        #expect(see.body.isEmpty)
        let keep = try Fixtures.echo(try await session.request(server.url("/redirect-to?url=%2Fanything&status_code=307"), method: .post, body: .string("kept body")).data())
        #expect(keep.method == "POST")
        #expect(keep.body == "kept body")
        let put302 = try Fixtures.echo(try await session.request(server.url("/redirect-to?url=%2Fanything&status_code=302"), method: .put, body: .string("p")).data())
        #expect(put302.method == "PUT")
    }

    @Test func oneShotStreamCannotBeResentOn307() async throws {
        let server = try await Fixtures.server()
        do {
            _ = try await session.request(
                server.url("/redirect-to?url=%2Fanything&status_code=307"), method: .post,
                body: .stream(ChunkSequence(chunks: [Array("abc".utf8)]))
            ).data()
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .bodyNotReplayable)
        }
    }
}
