import Foundation
import HTTPTypes
import Testing
import TestServer

@testable import Curlew

/// Credentials (Authorization, Proxy-Authorization, Cookie) never follow a redirect to another
/// origin: another scheme, host or port (RFC 9110 §15.4 leaves it to the client; Curlew strips).
@Suite("Redirects strip credentials across origins")
struct RedirectCredentialTests {
    private static let credentials: HTTPFields = [
        .authorization: "Bearer secret", .proxyAuthorization: "Basic cHJveHk6cHc=", .cookie: "session=1",
        HTTPField.Name("X-Other")!: "kept",
    ]

    /// Follows one 302 from `from` to `location` with the rules alone (no network).
    private func follow(from: String, to location: String) throws -> OutgoingRequest {
        let request = OutgoingRequest(url: try #require(URL(string: from)), headerFields: Self.credentials)
        let decision = RedirectRules.decide(
            request: request, head: HTTPResponse(status: .found), location: location, policy: .default, hopsSoFar: 0)
        guard case .follow(let next, _) = decision else {
            Issue.record("expected the redirect from \(from) to \(location) to be followed, got \(decision)")
            throw CurlewError(.redirectRejected, "not followed")
        }
        #expect(next.headerFields[HTTPField.Name("X-Other")!] == "kept")
        return next
    }

    private func expectStripped(_ next: OutgoingRequest, _ comment: Comment) {
        #expect(next.headerFields[.authorization] == nil, comment)
        #expect(next.headerFields[.proxyAuthorization] == nil, comment)
        #expect(next.headerFields[.cookie] == nil, comment)
    }

    private func expectKept(_ next: OutgoingRequest, _ comment: Comment) {
        #expect(next.headerFields[.authorization] == "Bearer secret", comment)
        #expect(next.headerFields[.proxyAuthorization] == "Basic cHJveHk6cHc=", comment)
        #expect(next.headerFields[.cookie] == "session=1", comment)
    }

    @Test func anotherPortIsAnotherOrigin() throws {
        expectStripped(try follow(from: "http://127.0.0.1:8080/a", to: "http://127.0.0.1:8081/b"), "port change")
        expectStripped(try follow(from: "http://example.com/a", to: "http://example.com:8080/b"), "default to explicit port")
    }

    @Test func anotherSchemeIsAnotherOrigin() throws {
        // Same host and the same explicit port: only the scheme differs.
        expectStripped(try follow(from: "https://example.com:8443/a", to: "http://example.com:8443/b"), "https to http")
        expectStripped(try follow(from: "http://example.com:8443/a", to: "https://example.com:8443/b"), "http to https")
    }

    @Test func anotherHostIsAnotherOrigin() throws {
        expectStripped(try follow(from: "http://127.0.0.1:8080/a", to: "http://localhost:8080/b"), "host change")
    }

    @Test func theSameOriginKeepsCredentials() throws {
        // The controls: without them, stripping on every hop would pass the tests above.
        expectKept(try follow(from: "http://example.com:8080/a", to: "/b"), "relative")
        expectKept(try follow(from: "http://example.com/a", to: "http://EXAMPLE.com:80/b"), "explicit default port, host case")
        expectKept(try follow(from: "https://example.com/a", to: "HTTPS://example.com:443/b"), "https default port, scheme case")
    }

    /// The same over the network: a redirect to another test server on the same host, another port.
    @Test func aRedirectToAnotherPortOverTheNetworkSendsNoCredentials() async throws {
        let server = try await Fixtures.server()
        let other = try await TestServer.start()
        let target = other.url("/anything").absoluteString
        let url = server.url("/redirect-to?url=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
        let headers = [
            "Authorization": "Bearer secret", "Proxy-Authorization": "Basic cHJveHk6cHc=", "Cookie": "session=1",
            "X-Other": "kept",
        ]
        let response = try await Fixtures.session.request(url, headers: RequestHeaders(headers)).data()
        try await other.shutdown()
        let echo = try Fixtures.echo(response)
        #expect(echo.url.hasPrefix(target), "the echo came from the other port: \(echo.url)")
        #expect(echo.headers["authorization"] == nil)
        #expect(echo.headers["proxy-authorization"] == nil)
        #expect(echo.headers["cookie"] == nil)
        #expect(echo.headers["x-other"] == "kept")
    }
}
