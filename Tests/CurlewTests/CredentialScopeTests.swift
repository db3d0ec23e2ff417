import Foundation
import HTTPTypes
import Testing
import TestServer

@testable import Curlew

/// Credentials against the rows of docs/SECURITY.md that no other suite held: a store entry for
/// an https origin never goes over http, and Digest state (nonce, count) never passes from one
/// request to the next, whoever sends it.
@Suite struct CredentialScopeTests {
    /// The store's entry is for `https://127.0.0.1:PORT`; the same host and port over http is
    /// another origin, so a preemptive Basic credential is not sent there (the route answers
    /// 401), while an entry for the http origin is.
    @Test func anHTTPSEntryIsNeverSentOverHTTP() async throws {
        let server = try await Fixtures.server()
        let user = HTTPAuthenticationTests.user("scheme")
        let path = "/basic-auth/\(user)/pw"
        let secure = try #require(URL(string: "https://127.0.0.1:\(server.port)/"))
        var store = HTTPCredentialStore()
        try store.set(HTTPCredential(username: user, password: "pw", method: .basic), for: secure)
        var configuration = SessionConfiguration()
        configuration.httpCredentials = store
        let session = Session(configuration: configuration)
        let refused = try await session.request(server.url(path)).response
        #expect(refused.head.status.code == 401)
        try store.set(HTTPCredential(username: user, password: "pw", method: .basic), for: server.url("/"))
        configuration.httpCredentials = store
        let plainSession = Session(configuration: configuration)
        let accepted = try await plainSession.request(server.url(path)).response
        #expect(accepted.head.status.code == 200 && server.requestCount(path: path) == 2)
        await session.shutdown()
        await plainSession.shutdown()
    }

    /// One handle for the session (one connection per host): Alice answers a Digest challenge,
    /// then an anonymous request and Bob's go to the same route. The anonymous one sends nothing
    /// (no answer made from Alice's nonce), and Bob answers a nonce of his own, counting from 1.
    @Test func digestStateNeverPassesToTheNextRequest() async throws {
        let server = try await Fixtures.server()
        let user = HTTPAuthenticationTests.user("nonce")
        let path = "/digest-auth/auth/\(user)/pw"
        var configuration = SessionConfiguration()
        configuration.maximumConnectionsPerHost = 1
        let session = Session(configuration: configuration)
        let alice = try await session.request(server.url(path)).authenticate(username: user, password: "pw", method: .digest).response
        #expect(alice.head.status.code == 200)
        let anonymous = try await session.request(server.url(path)).response
        #expect(anonymous.head.status.code == 401)
        let bob = try await session.request(server.url(path)).authenticate(username: user, password: "pw", method: .digest).response
        #expect(bob.head.status.code == 200)
        await session.shutdown()
        let sent = server.authorizations(path: path)
        try #require(sent.count == 5, "a probe and an answer for Alice, the anonymous request, a probe and an answer for Bob: \(sent)")
        #expect(sent[0] == nil && sent[2] == nil && sent[3] == nil, "\(sent)")
        let answers = [sent[1], sent[4]].compactMap { $0 }.map { DigestAuthRoutes.parseParameters(String($0.dropFirst(7))) }
        #expect(answers.count == 2 && answers[0]["nonce"] != answers[1]["nonce"], "\(answers)")
        #expect(answers.allSatisfy { $0["nc"] == "00000001" }, "\(answers)")
    }
}
