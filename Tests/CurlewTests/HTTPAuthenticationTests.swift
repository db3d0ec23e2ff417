import Foundation
import HTTPTypes
import Testing
import TestServer

@testable import Curlew

/// HTTP authentication through libcurl (`authenticate(username:password:method:)`) against the
/// test server's Basic route and its Digest implementation (`DigestAuthRoutes`), which checks
/// every Digest response itself.
@Suite("HTTP authentication: Basic, Digest, any")
struct HTTPAuthenticationTests {
    /// A fresh user name, so that each test has paths (and server-side records) of its own.
    static func user(_ prefix: String) -> String {
        "\(prefix)\(UInt32.random(in: 0...UInt32.max))"
    }

    /// The test server's JSON answer of an authentication route.
    struct AuthAnswer: Decodable {
        let authenticated: Bool
        let user: String?
        let scheme: String?
        let algorithm: String?
        let nc: Int?
        let bodyLength: Int?
        let reason: String?
    }

    static func answer(_ data: Data) throws -> AuthAnswer {
        try JSONDecoder().decode(AuthAnswer.self, from: data)
    }

    // MARK: Basic

    @Test func basicWithTheRightPasswordGets200AtTheFirstRequest() async throws {
        let server = try await Fixtures.server()
        let user = Self.user("basic")
        let path = "/basic-auth/\(user)/right-pw"
        let response = try await Fixtures.session.request(server.url(path))
            .authenticate(username: user, password: "right-pw", method: .basic)
            .validate()
            .response
        #expect(response.head.status.code == 200)
        #expect(try Self.answer(response.value).authenticated)
        #expect(server.requestCount(path: path) == 1, "Basic is sent with the first request, before any challenge")
    }

    @Test func basicWithAWrongPasswordIs401AndValidateSaysSo() async throws {
        let server = try await Fixtures.server()
        let user = Self.user("basicwrong")
        let secret = "wrong-pw-must-not-show"
        let error = try #require(
            await failure(
                Fixtures.session.request(server.url("/basic-auth/\(user)/right-pw"))
                    .authenticate(username: user, password: secret, method: .basic)
                    .validate()))
        #expect(error.kind == .unacceptableStatus)
        #expect(error.status?.code == 401)
        #expect(error.message.contains("401"), "\(error)")
        #expect(!"\(error)".contains(secret), "\(error)")
        #expect(!error.message.contains(secret))
    }

    // MARK: Digest

    @Test(arguments: ["MD5", "SHA-256"])
    func digestAnswersTheChallengeWithQopAuth(algorithm: String) async throws {
        let server = try await Fixtures.server()
        let user = Self.user("digest")
        let path = "/digest-auth/auth/\(user)/pass-\(algorithm)/\(algorithm)"
        let response = try await Fixtures.session.request(server.url(path))
            .authenticate(username: user, password: "pass-\(algorithm)", method: .digest)
            .validate()
            .response
        let answer = try Self.answer(response.value)
        #expect(response.head.status.code == 200)
        #expect(answer.authenticated && answer.scheme == "Digest" && answer.algorithm == algorithm, "\(answer)")
        #expect(answer.nc == 1)
        let sent = server.authorizations(path: path)
        #expect(sent.count == 2, "a request without credentials, then the answer to the challenge: \(sent)")
        #expect(sent.first == .some(nil), "Digest sends nothing before the challenge")
        let digest = try #require(sent.last ?? nil)
        #expect(digest.hasPrefix("Digest "))
        #expect(digest.contains("qop=auth") && digest.contains("cnonce=") && digest.contains("opaque="), "\(digest)")
        // The password is in the route's path (the uri), but in no other parameter.
        var parameters = DigestAuthRoutes.parseParameters(String(digest.dropFirst(7)))
        #expect(parameters.removeValue(forKey: "uri") == path)
        #expect(parameters.values.allSatisfy { !$0.contains("pass-\(algorithm)") }, "the password never crosses the wire")
    }

    @Test func aStaleNonceIsRenewedWithoutAskingAgain() async throws {
        let server = try await Fixtures.server()
        let user = Self.user("stale")
        let path = "/digest-auth/auth/\(user)/pw/MD5"
        let response = try await Fixtures.session.request(server.url(path + "?stale_once=1"))
            .authenticate(username: user, password: "pw", method: .digest)
            .validate()
            .response
        #expect(response.head.status.code == 200)
        let sent = server.authorizations(path: path)
        #expect(sent.count == 3, "no credentials; the first nonce, refused as stale; the new nonce: \(sent)")
        let nonces = sent.compactMap { $0 }.map { DigestAuthRoutes.parseParameters(String($0.dropFirst(7)))["nonce"] }
        #expect(nonces.count == 2)
        #expect(nonces.first != nonces.last, "the retry used the nonce of the stale challenge")
        #expect(response.attempts == 1, "libcurl renewed the nonce within one attempt")
    }

    @Test func digestWithAWrongPasswordIs401AfterOneAnswer() async throws {
        let server = try await Fixtures.server()
        let user = Self.user("digestwrong")
        let path = "/digest-auth/auth/\(user)/right/SHA-256"
        let secret = "wrong-digest-pw-must-not-show"
        let error = try #require(
            await failure(
                Fixtures.session.request(server.url(path))
                    .authenticate(username: user, password: secret, method: .digest)
                    .validate()))
        #expect(error.kind == .unacceptableStatus)
        #expect(error.status?.code == 401)
        #expect(!"\(error)".contains(secret))
        let answer = try Self.answer(try #require(error.responseBody))
        #expect(answer.reason == "wrong response", "the server recomputed the response and refused it")
        #expect(server.authorizations(path: path).count == 2, "libcurl answers once and does not loop")
    }

    @Test func aPostBodyIsSentAgainWithTheAnswer() async throws {
        let server = try await Fixtures.server()
        let user = Self.user("post")
        let body = Data(repeating: UInt8(ascii: "x"), count: 10_000)
        let data = try await Fixtures.session.request(
            server.url("/digest-auth/auth/\(user)/pw"), method: .post, body: .data(body))
            .authenticate(username: user, password: "pw", method: .digest)
            .validate()
            .data()
        let answer = try Self.answer(data)
        #expect(answer.authenticated)
        #expect(answer.bodyLength == body.count)
    }

    /// libcurl 7.88 sends a Digest POST first as a body-less probe and marks the connection;
    /// when the probe's 401 cannot be answered (the server offers only Basic), the transfer ends
    /// there, and a later POST without credentials on that connection went out with
    /// `Content-Length: 0` and no body. Such connections are closed after their transfer.
    @Test func aPlainPostAfterAnUnansweredDigestProbeKeepsItsBody() async throws {
        let server = try await Fixtures.server()
        let session = Session()
        defer { Task { await session.shutdown() } }
        for round in 0..<3 {
            let probe = try await session.request(
                server.url("/basic-auth/probe-user/pw"), method: .post, body: .string("secret form"))
                .authenticate(username: "probe-user", password: "pw", method: .digest)
                .response
            #expect(probe.status.code == 401, "round \(round): libcurl cannot answer a Basic challenge with Digest")
            let echo = try Fixtures.echo(
                try await session.request(server.url("/anything/plain-\(round)"), method: .post, body: .string("payload"))
                    .validate().data())
            #expect(echo.body == "payload", "round \(round)")
            #expect(echo.headers["content-length"] == "7", "round \(round)")
        }
    }

    /// The 401 that libcurl answers is not the response: streams and events see only the 200.
    @Test func streamsAndEventsSeeOnlyTheFinalResponse() async throws {
        let server = try await Fixtures.server()
        let user = Self.user("stream")
        let url = server.url("/digest-auth/auth/\(user)/pw")
        var streamed = Data()
        for try await chunk in Fixtures.session.request(url).authenticate(username: user, password: "pw").bytes {
            streamed.append(contentsOf: chunk)
        }
        #expect(try Self.answer(streamed).authenticated, "\(String(decoding: streamed, as: UTF8.self))")
        var statuses: [Int] = []
        for try await event in Fixtures.session.request(url).authenticate(username: user, password: "pw").events {
            if case .response(let head) = event { statuses.append(head.status.code) }
        }
        #expect(statuses == [200])
    }

    @Test func aFinalChallengeKeepsItsBody() async throws {
        let server = try await Fixtures.server()
        let user = Self.user("final401")
        let response = try await Fixtures.session.request(server.url("/digest-auth/auth/\(user)/right"))
            .authenticate(username: user, password: "wrong", method: .digest)
            .response
        #expect(response.head.status.code == 401)
        #expect(try Self.answer(response.value).reason == "wrong response")
    }

    @Test func aDownloadAuthenticatesToo() async throws {
        let server = try await Fixtures.server()
        let user = Self.user("download")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-auth-\(user)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try await Fixtures.session.download(server.url("/digest-auth/auth/\(user)/pw"), to: .directory(directory, options: .createIntermediateDirectories))
            .authenticate(username: user, password: "pw")
            .validate()
            .fileURL()
        #expect(try Self.answer(Data(contentsOf: file)).authenticated)
    }

    // MARK: any

    @Test func anyPicksDigestWhenOnlyDigestIsOffered() async throws {
        let server = try await Fixtures.server()
        let user = Self.user("anydigest")
        let path = "/digest-auth/auth/\(user)/pw"
        let data = try await Fixtures.session.request(server.url(path))
            .authenticate(username: user, password: "pw")
            .validate()
            .data()
        #expect(try Self.answer(data).scheme == "Digest")
        #expect(server.authorizations(path: path).first == .some(nil), "nothing is sent before the challenge")
    }

    @Test func anyPicksBasicWhenOnlyBasicIsOffered() async throws {
        let server = try await Fixtures.server()
        let user = Self.user("anybasic")
        let path = "/basic-auth/\(user)/pw"
        let data = try await Fixtures.session.request(server.url(path))
            .authenticate(username: user, password: "pw")
            .validate()
            .data()
        #expect(try Self.answer(data).authenticated)
        #expect(server.requestCount(path: path) == 2, "the first request went without credentials")
    }

    @Test func anyPrefersDigestToBasicAndAnySafeNeverSendsBasic() async throws {
        let server = try await Fixtures.server()
        let user = Self.user("both")
        let both = try await Fixtures.session.request(server.url("/digest-auth/auth/\(user)/pw?also_basic=1"))
            .authenticate(username: user, password: "pw", method: .any)
            .validate()
            .data()
        #expect(try Self.answer(both).scheme == "Digest")
        let basicOnly = try await Fixtures.session.request(server.url("/basic-auth/\(user)/pw"))
            .authenticate(username: user, password: "pw", method: .anySafe)
            .response
        #expect(basicOnly.head.status.code == 401, "anySafe does not answer a Basic-only challenge")
    }
}
