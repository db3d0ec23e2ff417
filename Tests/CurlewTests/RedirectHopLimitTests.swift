import Foundation
import HTTPTypes
import Testing
import TestServer

@testable import Curlew

/// The hop limit at its boundary: `follow(maximum: n)` follows n redirects and fails on the
/// (n+1)th, so a limit that is off by one in either direction turns a test here red.
@Suite("Redirect hop limit")
struct RedirectHopLimitTests {
    private func decide(hopsSoFar: Int, maximum: Int) throws -> RedirectRules.Decision {
        let request = OutgoingRequest(url: try #require(URL(string: "http://example.com/a")))
        return RedirectRules.decide(
            request: request, head: HTTPResponse(status: .found), location: "/b", policy: .follow(maximum: maximum),
            hopsSoFar: hopsSoFar)
    }

    @Test func theLastAllowedHopIsFollowedAndTheNextFails() throws {
        for maximum in [1, 2, 10] {
            guard case .follow(let next, _) = try decide(hopsSoFar: maximum - 1, maximum: maximum) else {
                Issue.record("hop \(maximum) of at most \(maximum) was not followed")
                continue
            }
            #expect(next.url.absoluteString == "http://example.com/b")
            guard case .fail(let error) = try decide(hopsSoFar: maximum, maximum: maximum) else {
                Issue.record("hop \(maximum + 1) of at most \(maximum) did not fail")
                continue
            }
            #expect(error.kind == .tooManyRedirects)
            #expect(error.message.contains("stopped after \(maximum) redirects"))
        }
        // No redirects allowed: the first one fails.
        guard case .fail(let error) = try decide(hopsSoFar: 0, maximum: 0) else {
            Issue.record("follow(maximum: 0) followed a redirect")
            return
        }
        #expect(error.kind == .tooManyRedirects)
    }

    @Test func maximumTwoFollowsTwoRedirectsOverTheNetworkAndFailsOnThree() async throws {
        let server = try await Fixtures.server()
        var options = RequestOptions()
        options.redirectPolicy = .follow(maximum: 2)
        let two = try await Fixtures.session.request(server.url("/redirect/2"), options: options).validate().response
        #expect(two.redirects.count == 2)
        #expect(two.url.path == "/get")
        let error = await failure(Fixtures.session.request(server.url("/redirect/3"), options: options))
        #expect(error?.kind == .tooManyRedirects)
    }
}
