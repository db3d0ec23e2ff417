import Curlew
import Foundation
import Testing
import TestServer

/// The opening handshake meets the session's retriers as a request's attempt does: an expired
/// token is refreshed once and the handshake sent again; a retry policy retries a 503.
@Suite("WebSocket handshake retries")
struct WebSocketRetryTests {
    func authenticator(_ server: OAuth2TestServer, accessToken: String, refreshToken: String) -> OAuth2Authenticator {
        OAuth2Authenticator(
            credential: OAuth2Credential(accessToken: accessToken, refreshToken: refreshToken, expiresAt: nil),
            tokenURL: server.tokenURL, clientID: server.clientID, clientSecret: server.clientSecret,
            scope: .hosts(["127.0.0.1"]))
    }

    @Test func aRejectedTokenIsRefreshedOnceAndTheHandshakeSentAgain() async throws {
        let tokens = try await OAuth2TestServer.start()
        let server = try await PythonWebSocketServer.start()
        let refreshToken = tokens.issueTokens().refreshToken
        let session = Session(interceptors: [authenticator(tokens, accessToken: "stale-token", refreshToken: refreshToken)])
        // The server refuses "Bearer stale-token" with 401 and shows any other one as its first message.
        let socket = try await session.webSocket(server.url("/auth/stale-token"))
        var iterator = socket.messages.makeAsyncIterator()
        let shown = try await iterator.next()
        guard case .text(let authorization) = shown else {
            Issue.record("expected the handshake's Authorization field, got \(String(describing: shown))")
            return
        }
        #expect(authorization.hasPrefix("Bearer ") && authorization != "Bearer stale-token", "\(authorization)")
        #expect(tokens.received.filter { $0.path == "/token" }.count == 1)
        await socket.close()
        await session.shutdown()
        await server.stop()
    }

    @Test func aRefreshThatFailsEndsTheOpeningWithItsError() async throws {
        let tokens = try await OAuth2TestServer.start()
        let server = try await PythonWebSocketServer.start()
        let refreshToken = tokens.issueTokens().refreshToken
        tokens.revokeRefreshTokens()
        let session = Session(interceptors: [authenticator(tokens, accessToken: "stale-token", refreshToken: refreshToken)])
        await #expect {
            _ = try await session.webSocket(server.url("/auth/stale-token"))
        } throws: { error in
            (error as? CurlewError)?.kind == .authenticationFailed
        }
        #expect(tokens.received.filter { $0.path == "/token" }.count == 1)
        await session.shutdown()
        await server.stop()
    }

    @Test func aRetryPolicyRetriesARefusedHandshakeUntilItsLimit() async throws {
        let server = try await PythonWebSocketServer.start(script: "websocket_fault_server.py")
        let policy = RetryPolicy(retryLimit: 2, backoffScale: .milliseconds(1), jitter: .disabled)
        let session = Session(interceptors: [policy])
        await #expect {
            _ = try await session.webSocket(server.url("/status/503"))
        } throws: { error in
            let error = error as? CurlewError
            return error?.kind == .retryLimitExceeded && error?.status?.code == 503
                && error?.message.contains("gave up after 3 attempts") == true
        }
        await session.shutdown()
        await server.stop()
    }

    @Test func withoutRetriersA401IsTheHandshakesError() async throws {
        let server = try await PythonWebSocketServer.start()
        let session = Session()
        await #expect {
            _ = try await session.webSocket(server.url("/auth/stale-token"))
        } throws: { error in
            let error = error as? CurlewError
            return error?.kind == .webSocketHandshakeFailed && error?.status?.code == 401
        }
        await session.shutdown()
        await server.stop()
    }
}
