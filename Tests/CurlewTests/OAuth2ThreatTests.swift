import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

/// Where OAuth2 credentials can go and what a hostile token endpoint, a plain-http path or a
/// concurrent caller can make the authenticator do, checked on the wire of the OAuth2 test
/// server (and of a second server standing for the network or another party).
@Suite("OAuth2 credentials: scope, token endpoint, hostile answers, races")
struct OAuth2ThreatTests {
    struct Resource: Decodable, Sendable { let token: String }

    /// A server that records every request it gets, whole, and answers 200: another party, or
    /// (as an HTTP proxy) the network between the client and the server.
    static func spy() async throws -> (server: ScriptedHTTPServer, seen: Recorder<String>) {
        let seen = Recorder<String>()
        let server = try await ScriptedHTTPServer.start { request in
            let fields = request.headerLines.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
            seen.append("\(request.method) \(request.rawTarget)\n\(fields)\n\n\(String(decoding: request.body, as: UTF8.self))")
            return .json(["token": "from-the-spy"])
        }
        return (server, seen)
    }

    static func credential(_ tokens: (accessToken: String, refreshToken: String, expiresAt: Date)) -> OAuth2Credential {
        OAuth2Credential(accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, expiresAt: tokens.expiresAt)
    }

    static func authenticator(
        _ server: OAuth2TestServer, _ credential: OAuth2Credential?, scope: AuthenticationScope = .hosts(["127.0.0.1"]),
        clientAuthentication: OAuth2ClientAuthentication = .basic, saved: Recorder<OAuth2Credential>? = nil
    ) -> OAuth2Authenticator {
        OAuth2Authenticator(
            credential: credential, tokenURL: server.tokenURL, clientID: server.clientID, clientSecret: server.clientSecret,
            clientAuthentication: clientAuthentication, scope: scope, onRefresh: { saved?.append($0) })
    }

    // MARK: Where the access token goes

    /// A plain-http request to a host the scope names by name would show the token to every
    /// party on the path — here, a proxy that records what it relays. It fails before it is
    /// sent; only an `http://` URL prefix, named on purpose, sends it.
    @Test func theTokenIsNeverSentInClearTextToAHostNamedByName() async throws {
        let server = try await OAuth2TestServer.start()
        let (proxy, seen) = try await Self.spy()
        defer { Task { await server.shutdown(); await proxy.shutdown() } }
        let tokens = server.issueTokens()
        var options = RequestOptions()
        options.proxy = .explicit(.http, host: "127.0.0.1", port: proxy.port)

        let byHost = Self.authenticator(server, Self.credential(tokens), scope: .hosts(["api.example.test"]))
        try await withSession(interceptors: [byHost]) { session in
            let error = await failure(session.request("http://api.example.test/resource/x", options: options))
            #expect(error?.kind == .authenticationFailed, "\(String(describing: error))")
            #expect(error?.message.contains("clear text") == true)
        }
        #expect(seen.all.isEmpty, "nothing reached the network: \(seen.all)")

        let byPrefix = Self.authenticator(
            server, Self.credential(tokens), scope: .urlPrefixes([URL(string: "http://api.example.test/resource")!]))
        try await withSession(interceptors: [byPrefix]) { session in
            _ = try await session.request("http://api.example.test/resource/y", options: options).data()
        }
        #expect(seen.all.count == 1)
        #expect(seen.all.first?.contains("Authorization: Bearer \(tokens.accessToken)") == true, "sent as the prefix asked")
        #expect(server.tokenEndpointCalls == 0)
    }

    /// A scope entry with a port covers that port only: another port of the same host — directly
    /// or through a redirect — gets no token, and its 401 triggers no refresh. Without a port,
    /// an entry covers every port of the host, as documented.
    @Test func aScopeWithAPortKeepsTheTokenFromOtherPorts() async throws {
        let server = try await OAuth2TestServer.start()
        let other = try await OAuth2TestServer.start()
        defer { Task { await server.shutdown(); await other.shutdown() } }
        let port = try #require(server.url("/").port)
        let tokens = server.issueTokens()
        let auth = Self.authenticator(server, Self.credential(tokens), scope: .hosts(["127.0.0.1:\(port)"]))
        try await withSession(interceptors: [auth]) { session in
            #expect(try await session.request(server.url("/resource/here")).response.status.code == 200)
            #expect(try await session.request(other.url("/resource/direct")).response.status.code == 401)
            let target = NamedHosts.encode(other.url("/resource/redirected").absoluteString)
            let redirected = try await session.request(server.url("/redirect?to=\(target)")).response
            #expect(redirected.status.code == 401)
            #expect(redirected.redirects.count == 1)
        }
        #expect(other.received.count == 2)
        #expect(other.received.allSatisfy { $0.authorization == nil })
        #expect(server.tokenEndpointCalls == 0, "a 401 from outside the scope refreshes nothing")

        let anyPort = Self.authenticator(server, Self.credential(tokens), scope: .hosts(["127.0.0.1"]))
        try await withSession(interceptors: [anyPort]) { session in
            // The other server does not know the token: its 401 leads to a refresh and a refusal.
            _ = await failure(session.request(other.url("/resource/any-port")))
        }
        #expect(
            other.received.filter { $0.path == "/resource/any-port" }.first?.authorization == "Bearer \(tokens.accessToken)",
            "a host entry without a port covers every port")
    }

    /// Both hosts are in the scope, but the redirect dropped the token; the second host's 401 is
    /// not the first's verdict on the token, so nothing is refreshed.
    @Test func a401FromAnotherHostAfterARedirectRefreshesNothing() async throws {
        let server = try await OAuth2TestServer.start()
        defer { Task { await server.shutdown() } }
        let auth = Self.authenticator(server, Self.credential(server.issueTokens()), scope: .hosts(["127.0.0.1", "localhost"]))
        try await withSession(interceptors: [auth]) { session in
            let target = NamedHosts.encode(server.localhostURL("/resource/elsewhere").absoluteString)
            let response = try await session.request(server.url("/redirect?to=\(target)")).response
            #expect(response.status.code == 401)
            #expect(response.attempts == 1)
        }
        #expect(server.received.filter { $0.host == "localhost" }.map(\.authorization) == [nil])
        #expect(server.tokenEndpointCalls == 0)
    }

    // MARK: The token endpoint

    /// A token endpoint that redirects — compromised, misconfigured, or answering through a
    /// hostile proxy — must not carry the refresh token or the client secret anywhere: the
    /// token request follows no redirect, whatever the status (a 307 or 308 would resend the
    /// body with the refresh token and, for `.body`, the client secret).
    @Test(arguments: [(OAuth2ClientAuthentication.basic, 307), (.body, 308), (.body, 302)])
    func theTokenEndpointIsNeverRedirected(_ method: OAuth2ClientAuthentication, _ status: Int) async throws {
        let server = try await OAuth2TestServer.start()
        let (elsewhere, seen) = try await Self.spy()
        defer { Task { await server.shutdown(); await elsewhere.shutdown() } }
        server.setTokenAnswer(ScriptedResponse(status: status, headers: [("Location", elsewhere.url("/token").absoluteString)]))
        let expired = Self.credential(server.issueTokens(lifetime: .seconds(-60)))
        let auth = Self.authenticator(server, expired, clientAuthentication: method)
        try await withSession(interceptors: [auth]) { session in
            let error = await failure(session.request(server.url("/resource/x")))
            #expect(error?.kind == .authenticationFailed)
            #expect(error?.message.contains("redirect") == true, "\(String(describing: error))")
        }
        #expect(seen.all.isEmpty, "the redirect target got nothing: \(seen.all)")
        #expect(server.tokenEndpointCalls == 1)
        #expect(server.received.filter { $0.path.hasPrefix("/resource") }.isEmpty)
        #expect(await auth.credential == expired, "the credential is unchanged")
    }

    struct HostileAnswer: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let mentions: String
        let response: ScriptedResponse

        static let secret = "rt-from-a-hostile-answer"
        static let all: [HostileAnswer] = [
            HostileAnswer(
                testDescription: "2 MiB", mentions: "exceeds the maximum",
                response: .text(#"{"access_token":"x","pad":""# + String(repeating: "p", count: 2 << 20) + #""}"#)),
            HostileAnswer(testDescription: "HTML", mentions: "not a JSON object", response: .text("<html>welcome</html>")),
            HostileAnswer(testDescription: "a JSON array", mentions: "not a JSON object", response: .text("[]")),
            HostileAnswer(testDescription: "empty", mentions: "not a JSON object", response: .text("")),
            HostileAnswer(
                testDescription: "no access_token", mentions: "no access_token",
                response: .json(["token_type": "bearer", "refresh_token": secret])),
            HostileAnswer(
                testDescription: "CR LF in the token", mentions: "cannot be sent",
                response: .json(["access_token": "a\r\nX-Evil: 1", "refresh_token": secret])),
            HostileAnswer(
                testDescription: "another token type", mentions: "not supported",
                response: .json(["access_token": "mac-token", "token_type": "mac", "refresh_token": secret])),
            HostileAnswer(
                testDescription: "negative expires_in", mentions: "expires_in",
                response: .json(["access_token": "t", "token_type": "bearer", "expires_in": -5, "refresh_token": secret])),
        ]
    }

    /// Whatever the token endpoint answers, a bad answer fails the refresh clearly: the request
    /// fails with `authenticationFailed`, nothing is sent with a token from it, the old
    /// credential stays, and the error carries the answer with its tokens as `***`.
    @Test(arguments: HostileAnswer.all)
    func aHostileTokenAnswerFailsTheRefreshCleanly(_ answer: HostileAnswer) async throws {
        let server = try await OAuth2TestServer.start()
        defer { Task { await server.shutdown() } }
        server.setTokenAnswer(answer.response)
        let expired = Self.credential(server.issueTokens(lifetime: .seconds(-60)))
        let auth = Self.authenticator(server, expired)
        try await withSession(interceptors: [auth]) { session in
            let error = await failure(session.request(server.url("/resource/x")))
            #expect(error?.kind == .authenticationFailed, "\(String(describing: error))")
            #expect(error?.message.contains(answer.mentions) == true, "\(String(describing: error))")
            #expect(error?.responseBodyText?.contains(HostileAnswer.secret) != true, "the answer's tokens are hidden")
            #expect(error.map { "\($0)" }?.contains(HostileAnswer.secret) == false)
        }
        #expect(server.received.filter { $0.path.hasPrefix("/resource") }.isEmpty, "nothing was sent with a bad token")
        #expect(await auth.credential == expired)
        #expect(server.tokenEndpointCalls == 1)
    }

    /// A good answer without a refresh token keeps the old one (RFC 6749 §6); an enormous
    /// `expires_in` is capped rather than overflowing the date.
    @Test func anAnswerWithoutARefreshTokenKeepsTheOldOneAndAHugeLifetimeIsCapped() async throws {
        let server = try await OAuth2TestServer.start()
        defer { Task { await server.shutdown() } }
        let issued = server.issueTokens()
        server.setTokenAnswer(.json(["access_token": issued.accessToken, "token_type": "Bearer", "expires_in": 1e300]))
        let expired = Self.credential(server.issueTokens(lifetime: .seconds(-60)))
        let auth = Self.authenticator(server, expired)
        try await withSession(interceptors: [auth]) { session in
            let resource = try await session.request(server.url("/resource/x")).validate().decode(Resource.self)
            #expect(resource.token == issued.accessToken)
        }
        let now = await auth.credential
        #expect(now?.refreshToken == expired.refreshToken)
        let lifetime = (now?.expiresAt?.timeIntervalSinceNow ?? 0) / (365 * 86_400)
        #expect(lifetime > 99 && lifetime < 101, "\(lifetime) years")
    }

    /// The refresh token and the client secret appear in no request but the token endpoint's,
    /// through refreshes, retries and redirects to other hosts.
    @Test func theRefreshTokenAndTheClientSecretGoOnlyToTheTokenURL() async throws {
        let server = try await OAuth2TestServer.start(clientAuthentication: .body)
        defer { Task { await server.shutdown() } }
        let tokens = server.issueTokens()
        let auth = Self.authenticator(server, Self.credential(tokens), clientAuthentication: .body)
        try await withSession(interceptors: [auth]) { session in
            server.expireAccessTokens()
            _ = try await session.request(server.url("/resource/1")).validate().data()
            let target = NamedHosts.encode(server.localhostURL("/resource/moved").absoluteString)
            _ = try await session.request(server.url("/redirect?to=\(target)")).response
            server.expireAccessTokens()
            _ = try await session.request(server.url("/resource/2"), method: .post, body: .string("x")).validate().data()
        }
        let rotated = try #require(await auth.credential?.refreshToken)
        let secret = try #require(server.clientSecret)
        let encodedSecret = "s3cr%3Aet+%26more"
        #expect(secret == "s3cr:et &more", "the form encoding checked below")
        let carriers = server.received.filter { request in
            [tokens.refreshToken, rotated, secret, encodedSecret].contains { request.contains($0) }
        }
        #expect(carriers.count == 2, "the two refreshes")
        #expect(carriers.allSatisfy { $0.path == "/token" })
        #expect(server.received.filter { $0.path != "/token" }.allSatisfy { !($0.authorization ?? "").hasPrefix("Basic") })
    }

    // MARK: Sharing and concurrency

    /// A credential set while a refresh runs (a new login) stands: the refresh that finishes
    /// later neither replaces it nor reaches `onRefresh` (which would store the old login's
    /// tokens over the new), and the waiting request goes with the new credential.
    @Test func aCredentialSetWhileARefreshRunsIsNotOverwritten() async throws {
        let server = try await OAuth2TestServer.start()
        defer { Task { await server.shutdown() } }
        let saved = Recorder<OAuth2Credential>()
        let auth = Self.authenticator(server, Self.credential(server.issueTokens(lifetime: .seconds(-60))), saved: saved)
        let session = Session(interceptors: [auth])
        defer { Task { await session.shutdown() } }
        server.holdTokenEndpoint()
        async let waiting = session.request(server.url("/resource/waiting")).validate().decode(Resource.self)
        try await waitUntil { server.heldTokenCalls == 1 }
        let login = server.issueTokens()
        await auth.setCredential(Self.credential(login))
        server.releaseTokenEndpoint()
        #expect(try await waiting.token == login.accessToken)
        #expect(server.successfulRefreshes == 1, "the refresh did happen")
        #expect(await auth.credential?.accessToken == login.accessToken)
        #expect(saved.all.isEmpty, "onRefresh never saw the replaced login's tokens")
        let next = try await session.request(server.url("/resource/next")).validate().decode(Resource.self)
        #expect(next.token == login.accessToken)
    }

    /// Two sessions sharing one authenticator refresh once between them.
    @Test func twoSessionsSharingOneAuthenticatorRefreshOnce() async throws {
        let server = try await OAuth2TestServer.start()
        defer { Task { await server.shutdown() } }
        let auth = Self.authenticator(server, Self.credential(server.issueTokens(lifetime: .seconds(-60))))
        let arrivals = OAuth2Tests.Arrivals()
        let sessions = [Session(interceptors: [arrivals, auth]), Session(interceptors: [arrivals, auth])]
        defer { Task { for session in sessions { await session.shutdown() } } }
        server.holdTokenEndpoint()
        let burst = Task {
            await withTaskGroup(of: String?.self) { group in
                for index in 0..<40 {
                    group.addTask {
                        try? await sessions[index % 2].request(server.url("/resource/\(index)")).validate()
                            .decode(Resource.self).token
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        try await waitUntil { arrivals.adapted == 40 && server.heldTokenCalls >= 1 }
        server.releaseTokenEndpoint()
        let tokens = await burst.value
        #expect(tokens.allSatisfy { $0 != nil })
        #expect(Set(tokens).count == 1, "one refreshed token for both sessions")
        #expect(server.tokenEndpointCalls == 1)
    }

    /// One authenticator is one identity. A server acting for many users with one session gives
    /// each request its user's authenticator (`intercept(with:)`): every request carries its
    /// own user's token, and a request without one carries none.
    @Test func aSessionActingForManyUsersGivesEachRequestItsUsersAuthenticator() async throws {
        let server = try await OAuth2TestServer.start()
        defer { Task { await server.shutdown() } }
        let users = (0..<6).map { _ in server.issueTokens() }
        let authenticators = users.map { Self.authenticator(server, Self.credential($0)) }
        try await withSession { session in
            let results = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for index in 0..<30 {
                    group.addTask {
                        let user = index % users.count
                        let resource = try await session.request(server.url("/resource/\(index)"))
                            .intercept(with: authenticators[user]).validate().decode(Resource.self)
                        return (user, resource.token)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.count == 30)
            #expect(results.allSatisfy { users[$0.0].accessToken == $0.1 })
            #expect(try await session.request(server.url("/resource/anonymous")).response.status.code == 401)
        }
    }

    /// Printed, debug-printed, dumped, or in a refresh error: no token and no client secret.
    @Test func printingTheCredentialTheRefresherOrTheirErrorsShowsNoSecret() async throws {
        let secrets = ["access-secret-1", "refresh-secret-2", "client-secret-3"]
        let credential = OAuth2Credential(accessToken: secrets[0], refreshToken: secrets[1], expiresAt: nil)
        let refresher = OAuth2TokenRefresher(
            tokenURL: URL(string: "https://auth.example/token")!, clientID: "app", clientSecret: secrets[2])
        let auth = AuthenticationInterceptor(authenticator: refresher, credential: credential, scope: .hosts(["api.example"]))
        for value in [credential, refresher, auth] as [Any] {
            var dumped = ""
            dump(value, to: &dumped)
            for text in [dumped, String(reflecting: value), "\(value)"] {
                #expect(!secrets.contains { text.contains($0) }, "\(text)")
            }
        }
        #expect("\(refresher)".contains("clientID: \"app\""), "what is not secret still shows")
    }
}
