import Curlew
import Foundation
import Testing
import TestServer

/// The token request's own time limit, checked where the token endpoint is sure to have seen
/// the request before the limit ends: in the parallel phase a loaded machine once took more
/// than the 1 s limit this test had to deliver the token request at all (the endpoint counted
/// 0 calls). "Timing" in the name puts the suite in the serial phase, and the limit is 5 s.
@Suite("OAuth2 token request limit")
struct OAuth2TokenTimingTests {
    /// A token endpoint that accepts the request and never answers (or trickles too slowly for
    /// the idle timeout) cannot hold the requests waiting for the refresh: the token request
    /// ends at the refresher's limit, and every waiter fails with it.
    @Test func aTokenEndpointThatNeverAnswersFailsTheWaitersInsteadOfHoldingThem() async throws {
        let server = try await OAuth2TestServer.start()
        defer { Task { await server.shutdown() } }
        server.holdTokenEndpoint()
        let auth = AuthenticationInterceptor(
            authenticator: OAuth2TokenRefresher(
                tokenURL: server.tokenURL, clientID: server.clientID, clientSecret: server.clientSecret,
                tokenRequestTimeout: .seconds(5)),
            credential: OAuth2ThreatTests.credential(server.issueTokens(lifetime: .seconds(-60))), scope: .hosts(["127.0.0.1"]))
        var configuration = SessionConfiguration()
        configuration.timeouts = Timeouts(connect: .seconds(30), total: nil, idle: .seconds(3600))
        let session = Session(configuration: configuration, interceptors: [auth])
        let burst = Task { () throws -> [CurlewError?] in
            await withTaskGroup(of: CurlewError?.self) { group in
                for index in 0..<20 { group.addTask { await failure(session.request(server.url("/resource/\(index)"))) } }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        let outcome = await HangGuard.result(of: burst, within: .seconds(300))
        server.releaseTokenEndpoint()
        await session.shutdown()
        let errors = try #require(try outcome?.get(), "hung: the requests waited for a token endpoint that never answered")
        #expect(errors.count == 20)
        #expect(errors.allSatisfy { $0?.kind == .authenticationFailed }, "\(errors.first.map(String.init(describing:)) ?? "")")
        #expect(server.tokenEndpointCalls == 1)
    }

}
