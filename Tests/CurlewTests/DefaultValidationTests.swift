import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

/// `SessionConfiguration.usesDefaultValidation` (HTTPTransport's `useDefaultValidation`) and
/// `Request.skipDefaultValidation()`.
@Suite("Session-wide default validation")
struct DefaultValidationTests {
    static func validatingSession(interceptors: [any RequestInterceptor] = []) -> Session {
        var configuration = SessionConfiguration()
        configuration.usesDefaultValidation = true
        return Session(configuration: configuration, interceptors: interceptors)
    }

    @Test func offByDefaultSoA404IsAResponse() async throws {
        let server = try await Fixtures.server()
        #expect(SessionConfiguration().usesDefaultValidation == false)
        let response = try await Fixtures.session.request(server.url("/status/404")).response
        #expect(response.status.code == 404)
    }

    @Test func explicitValidateOnASessionWithoutDefaultValidationStillFails() async throws {
        let server = try await Fixtures.server()
        let error = await failure(Fixtures.session.request(server.url("/status/404")).validate())
        #expect(error?.kind == .unacceptableStatus)
    }

    @Test func aValidatingSessionRejectsStatusAndContentTypeAsValidateWould() async throws {
        let server = try await Fixtures.server()
        let session = Self.validatingSession()
        defer { Task { await session.shutdown() } }
        let status = await failure(session.request(server.url("/status/404")))
        #expect(status?.kind == .unacceptableStatus)
        #expect(status?.status?.code == 404)
        let accepting: HTTPFields = [.accept: "application/json"]
        let type = await failure(session.request(server.url("/bytes/10"), headers: RequestHeaders(accepting)))
        #expect(type?.kind == .unacceptableContentType)
        // Without an Accept header, any Content-Type of a 2xx passes.
        #expect(try await session.request(server.url("/bytes/10")).data().count == 10)
    }

    @Test func skipDefaultValidationLetsA404ThroughButNotTheRequestsOwnChecks() async throws {
        let server = try await Fixtures.server()
        let session = Self.validatingSession()
        defer { Task { await session.shutdown() } }
        let response = try await session.request(server.url("/status/404")).skipDefaultValidation().response
        #expect(response.status.code == 404)
        // Its own checks still apply, asked before or after the switch.
        let before = await failure(session.request(server.url("/status/404")).validate(statusCode: [200]).skipDefaultValidation())
        #expect(before?.kind == .unacceptableStatus)
        let after = await failure(session.request(server.url("/status/404")).skipDefaultValidation().validate())
        #expect(after?.kind == .unacceptableStatus)
    }

    @Test func theDefaultAddsToTheRequestsOwnChecksAndRunsAfterThem() async throws {
        struct ServiceError: Decodable, Error { let code: Int; let message: String }
        let server = try await ScriptedHTTPServer.start { request in
            request.path == "/broken" ? .json(["code": 500, "message": "Database error"], status: 500) : .text("gone", status: 404)
        }
        defer { Task { await server.shutdown() } }
        let session = Self.validatingSession()
        defer { Task { await session.shutdown() } }
        // A wider status check does not switch the default off: both apply.
        let widened = await failure(session.request(server.url("/gone")).validate(statusCode: 200..<500))
        #expect(widened?.kind == .unacceptableStatus)
        // The request's own check names the failure first: its decoded error body is kept.
        let decoded = await failure(session.request(server.url("/broken")).validate(errorType: ServiceError.self))
        #expect(decoded?.apiError(as: ServiceError.self)?.message == "Database error")
    }

    @Test func downloadsAndStreamsAreValidatedByDefaultToo() async throws {
        let server = try await Fixtures.server()
        let session = Self.validatingSession()
        defer { Task { await session.shutdown() } }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-default-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("file")

        let download = await #expect(throws: CurlewError.self) {
            _ = try await session.download(server.url("/status/404"), to: .file(destination)).fileURL()
        }
        #expect(download?.kind == .unacceptableStatus)
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        _ = try await session.download(server.url("/status/404"), to: .file(destination)).skipDefaultValidation().fileURL()
        #expect(FileManager.default.fileExists(atPath: destination.path))

        let stream = await #expect(throws: CurlewError.self) {
            for try await _ in session.request(server.url("/status/404")).bytes {}
        }
        #expect(stream?.kind == .unacceptableStatus)
        var streamed = 0
        for try await chunk in session.request(server.url("/bytes/100")).bytes { streamed += chunk.count }
        #expect(streamed == 100)
    }

    @Test func retriersSeeWhatDefaultValidationRejects() async throws {
        let server = try await Fixtures.server()
        let session = Self.validatingSession(interceptors: [RetryPolicy(retryLimit: 1, backoffScale: .milliseconds(1))])
        defer { Task { await session.shutdown() } }
        let id = UUID().uuidString
        let response = try await session.request(server.url("/flaky/\(id)?failures=1")).serialized(by: .data)
        #expect(response.attempts == 2, "the 503 failed default validation and RetryPolicy retried it")
    }

    @Test func anOAuth2RefreshRefusedOnAValidatingSessionIsStillAnAuthenticationFailure() async throws {
        let server = try await OAuth2TestServer.start()
        defer { Task { await server.shutdown() } }
        let tokens = server.issueTokens()
        server.expireAccessTokens()
        server.revokeRefreshTokens()
        let auth = OAuth2Authenticator(
            credential: OAuth2Credential(accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, expiresAt: nil),
            tokenURL: server.tokenURL, clientID: server.clientID, clientSecret: server.clientSecret,
            scope: .hosts(["127.0.0.1"]))
        let session = Self.validatingSession(interceptors: [auth])
        defer { Task { await session.shutdown() } }
        let error = await failure(session.request(server.url("/resource/1")))
        #expect(error?.kind == .authenticationFailed, "the token endpoint's 400 was read as an OAuth2 error, not rejected")
        #expect(error?.message.contains("invalid_grant") == true)
    }
}
