import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

@Suite("OAuth2 authenticator against a local OAuth2 server")
struct OAuth2Tests {
    struct Resource: Decodable, Sendable { let token: String }

    func authenticator(
        _ server: OAuth2TestServer, credential: OAuth2Credential?, clientAuthentication: OAuth2ClientAuthentication = .basic,
        scope: AuthenticationScope? = nil, requiresInvalidTokenChallenge: Bool = false,
        refreshWindow: RefreshWindow? = .default, saved: Recorder<OAuth2Credential>? = nil
    ) -> OAuth2Authenticator {
        OAuth2Authenticator(
            credential: credential, tokenURL: server.tokenURL, clientID: server.clientID, clientSecret: server.clientSecret,
            clientAuthentication: clientAuthentication, scope: scope ?? .hosts(["127.0.0.1"]),
            requiresInvalidTokenChallenge: requiresInvalidTokenChallenge, refreshWindow: refreshWindow,
            onRefresh: { saved?.append($0) })
    }

    func credential(from tokens: (accessToken: String, refreshToken: String, expiresAt: Date), knownExpiry: Bool = true)
        -> OAuth2Credential
    {
        OAuth2Credential(
            accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, expiresAt: knownExpiry ? tokens.expiresAt : nil)
    }

    /// Runs `count` requests to `/resource/{i}` at once; returns each result.
    func burst(_ session: Session, _ server: OAuth2TestServer, count: Int) async -> [Result<Resource, CurlewError>] {
        await withTaskGroup(of: Result<Resource, CurlewError>.self) { group in
            for index in 0..<count {
                group.addTask {
                    do throws(CurlewError) {
                        return .success(try await session.request(server.url("/resource/\(index)")).validate().decode(Resource.self))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            var results: [Result<Resource, CurlewError>] = []
            for await result in group { results.append(result) }
            return results
        }
    }

    /// Counts, ahead of the authenticator in the chain, the requests that reached `adapt` and
    /// the failed attempts that reached the retry stage; it never decides anything.
    struct Arrivals: RequestInterceptor {
        let counter = CallCounter()

        var adapted: Int { counter.count("adapt") }
        var atRetry: Int { counter.count("retry") }

        func adapt(_ request: OutgoingRequest, for session: Session) async throws -> OutgoingRequest {
            _ = counter.next("adapt")
            return request
        }

        func retry(_ request: OutgoingRequest, for session: Session, dueTo error: CurlewError, context: RetryContext) async
            -> RetryResult
        {
            _ = counter.next("retry")
            return .doNotRetry
        }
    }

    /// Runs a burst of 100 against a held token endpoint, and releases it once `ready` holds and
    /// a token request is waiting: every request is then at the authenticator, so a second
    /// refresh — a broken single flight — would have reached the endpoint too. Returns the
    /// results and how many token requests were held at the release.
    func gatedBurst(
        _ session: Session, _ server: OAuth2TestServer, until ready: @escaping @Sendable () -> Bool
    ) async throws -> (results: [Result<Resource, CurlewError>], heldAtRelease: Int) {
        server.holdTokenEndpoint()
        async let results = burst(session, server, count: 100)
        // A second held token request is a broken single flight already: no need to wait longer.
        try await waitUntil { (ready() && server.heldTokenCalls >= 1) || server.heldTokenCalls >= 2 }
        let held = server.heldTokenCalls
        server.releaseTokenEndpoint()
        server.releaseResources()  // open already, unless the wait above timed out: no hang then
        return (await results, held)
    }

    @Test func hundredConcurrentRequestsWithAnExpiredTokenRefreshOnce() async throws {
        let server = try await OAuth2TestServer.start()
        defer { Task { await server.shutdown() } }
        let saved = Recorder<OAuth2Credential>()
        let auth = authenticator(server, credential: credential(from: server.issueTokens(lifetime: .seconds(-60))), saved: saved)
        let arrivals = Arrivals()
        let session = Session(interceptors: [arrivals, auth])
        defer { Task { await session.shutdown() } }

        // The token endpoint is released only once all 100 requests have passed the adapter
        // ahead of the authenticator: each then waits for the one refresh (or, broken, starts one).
        let (results, heldAtRelease) = try await gatedBurst(session, server) { arrivals.adapted == 100 }
        #expect(heldAtRelease == 1)
        let tokens = try results.map { try $0.get().token }
        #expect(tokens.count == 100)
        #expect(server.tokenEndpointCalls == 1)
        #expect(await auth.refreshCount == 1)
        #expect(Set(tokens).count == 1, "every request used the one refreshed token")
        #expect(saved.all.map(\.accessToken) == [tokens[0]], "onRefresh stored the new credential once")
        #expect(server.received.filter { $0.path.hasPrefix("/resource") }.count == 100, "expired tokens were never sent")
    }

    @Test func hundredConcurrent401sRefreshOnceAndAllSucceed() async throws {
        let server = try await OAuth2TestServer.start()
        defer { Task { await server.shutdown() } }
        let tokens = server.issueTokens()
        server.expireAccessTokens()
        // The client does not know the expiry: only the 401s tell it. No 401 leaves the server
        // before all 100 requests have arrived with the old token (none waits in `adapt`), and
        // the token endpoint is released once all 100 rejections are at the retry stage.
        server.holdResources(untilArrivals: 100)
        let auth = authenticator(server, credential: credential(from: tokens, knownExpiry: false))
        let arrivals = Arrivals()
        let session = Session(interceptors: [arrivals, auth])
        defer { Task { await session.shutdown() } }

        let (results, heldAtRelease) = try await gatedBurst(session, server) { arrivals.atRetry == 100 }
        #expect(heldAtRelease == 1)
        let failures = results.compactMap { result -> CurlewError? in
            if case .failure(let error) = result { return error }
            return nil
        }
        #expect(failures.count == 0, "the first: \(failures.first.map(String.init(describing:)) ?? "")")
        #expect(server.tokenEndpointCalls == 1)
        #expect(await auth.credentialVersion == 1)
        #expect(arrivals.atRetry == 100, "each request was rejected once, then succeeded")
        // Every request was sent once with the old token (its 401) and once with the new one.
        let resourceRequests = server.received.filter { $0.path.hasPrefix("/resource") }
        #expect(resourceRequests.count == 200)
        let refreshed = try #require(await auth.credential?.accessToken)
        #expect(refreshed != tokens.accessToken)
        let withNewToken = resourceRequests.filter { $0.authorization == "Bearer \(refreshed)" }.count
        let withOldToken = resourceRequests.filter { $0.authorization == "Bearer \(tokens.accessToken)" }.count
        #expect(withNewToken == 100)
        #expect(withOldToken == 100)
    }

    @Test func aFailedRefreshFailsEveryWaiterWithoutALoop() async throws {
        let server = try await OAuth2TestServer.start()
        defer { Task { await server.shutdown() } }
        let tokens = server.issueTokens()
        server.expireAccessTokens()
        server.revokeRefreshTokens()
        server.holdResources(untilArrivals: 100)
        let auth = authenticator(server, credential: credential(from: tokens, knownExpiry: false))
        let arrivals = Arrivals()
        let session = Session(interceptors: [arrivals, auth, RetryPolicy.default])
        defer { Task { await session.shutdown() } }

        // Released once all 100 rejections are at the retry stage: all wait for the one refresh.
        let (results, heldAtRelease) = try await gatedBurst(session, server) { arrivals.atRetry == 100 }
        #expect(heldAtRelease == 1)
        let errors = results.compactMap { result -> CurlewError? in
            if case .failure(let error) = result { return error }
            return nil
        }
        #expect(errors.count == 100)
        #expect(errors.allSatisfy { $0.kind == .authenticationFailed })
        #expect(errors.allSatisfy { $0.message.contains("invalid_grant") })
        #expect(errors.first?.url == server.tokenURL)
        #expect(server.tokenEndpointCalls == 1, "one refresh for the whole burst, no loop")
        #expect(server.received.filter { $0.path.hasPrefix("/resource") }.count == 100, "no request was sent again")

        // A later request may try again (and fails the same way, once).
        await #expect(throws: CurlewError.self) {
            try await session.request(server.url("/resource/again")).validate().data()
        }
        #expect(server.tokenEndpointCalls == 2)

        // After a new login the authenticator works again.
        await auth.setCredential(credential(from: server.issueTokens()))
        let resource = try await session.request(server.url("/resource/ok")).validate().decode(Resource.self)
        #expect(resource.token == (await auth.credential?.accessToken))
    }

    @Test func expiredCredentialWithAFailingRefreshFailsTheBurstOnce() async throws {
        let server = try await OAuth2TestServer.start()
        defer { Task { await server.shutdown() } }
        let tokens = server.issueTokens(lifetime: .seconds(-1))
        server.setFailsEveryRefresh(true)
        let auth = authenticator(server, credential: credential(from: tokens))
        let arrivals = Arrivals()
        let session = Session(interceptors: [arrivals, auth])
        defer { Task { await session.shutdown() } }
        let (results, heldAtRelease) = try await gatedBurst(session, server) { arrivals.adapted == 100 }
        #expect(heldAtRelease == 1)
        #expect(results.allSatisfy { (try? $0.get()) == nil })
        #expect(server.tokenEndpointCalls == 1)
        #expect(server.received.filter { $0.path.hasPrefix("/resource") }.isEmpty, "nothing was sent with the expired token")
        guard case .failure(let error) = results[0] else {
            Issue.record("the first request of the burst succeeded")
            return
        }
        #expect(error.kind == .authenticationFailed)
        #expect(error.message.contains("server_error"))
        #expect(error.status?.code == 500)
    }

    @Test func aRotatedRefreshTokenIsUsedNextTime() async throws {
        let server = try await OAuth2TestServer.start()
        defer { Task { await server.shutdown() } }
        let tokens = server.issueTokens()
        let auth = authenticator(server, credential: credential(from: tokens, knownExpiry: false))
        let session = Session(interceptors: [auth])
        defer { Task { await session.shutdown() } }

        server.expireAccessTokens()
        _ = try await session.request(server.url("/resource/1")).validate().data()
        let afterFirst = try #require(await auth.credential)
        #expect(afterFirst.refreshToken != tokens.refreshToken)

        server.expireAccessTokens()
        _ = try await session.request(server.url("/resource/2")).validate().data()
        #expect(server.usedRefreshTokens == [tokens.refreshToken, try #require(afterFirst.refreshToken)])
        #expect(server.successfulRefreshes == 2)
        #expect(await auth.credential?.refreshToken != afterFirst.refreshToken)
        // The refresh never passed through the authenticator: client credentials, no bearer token.
        let tokenRequests = server.received.filter { $0.path == "/token" }
        #expect(tokenRequests.count == 2)
        #expect(tokenRequests.allSatisfy { $0.authorization?.hasPrefix("Basic ") == true })
    }

    @Test func theTokenNeverLeavesTheScope() async throws {
        let server = try await OAuth2TestServer.start()
        defer { Task { await server.shutdown() } }
        let auth = authenticator(server, credential: credential(from: server.issueTokens()))
        let session = Session(interceptors: [auth])
        defer { Task { await session.shutdown() } }

        let inScope = try await session.request(server.url("/resource/in")).validate().decode(Resource.self)
        #expect(!inScope.token.isEmpty)
        // Another host name of the same server is outside the scope.
        let outside = try await session.request(server.localhostURL("/resource/out")).response
        #expect(outside.status.code == 401, "no token, and a 401 from outside the scope is not retried")
        // A redirect from the scope to another host drops the token.
        let target = server.localhostURL("/resource/redirected").absoluteString
        let redirected = try await session.request(
            server.url("/redirect?to=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
        ).response
        #expect(redirected.status.code == 401)
        #expect(redirected.redirects.count == 1)

        let localhostRequests = server.received.filter { $0.host == "localhost" }
        #expect(localhostRequests.count == 2)
        #expect(localhostRequests.allSatisfy { $0.authorization == nil })
        #expect(server.tokenEndpointCalls == 0, "401s from outside the scope never trigger a refresh")
        let main = try await Fixtures.server()
        let echo = try Fixtures.echo(try await session.request(main.localhostURL("/anything/leak")).data())
        #expect(echo.headers["authorization"] == nil)
    }

    @Test func urlPrefixScope() async throws {
        let server = try await OAuth2TestServer.start()
        defer { Task { await server.shutdown() } }
        let auth = authenticator(
            server, credential: credential(from: server.issueTokens()),
            scope: .urlPrefixes([server.url("/resource/api")]))
        let session = Session(interceptors: [auth])
        defer { Task { await session.shutdown() } }
        #expect(try await session.request(server.url("/resource/api/users")).response.status.code == 200)
        #expect(try await session.request(server.url("/resource/apiary")).response.status.code == 401)
        #expect(try await session.request(server.url("/resource/other")).response.status.code == 401)
    }

    @Test func clientAuthenticationByBasicOrBody() async throws {
        let basicOnly = try await OAuth2TestServer.start(clientAuthentication: .basic)
        let bodyOnly = try await OAuth2TestServer.start(clientAuthentication: .body)
        let publicClient = try await OAuth2TestServer.start(clientSecret: nil)
        defer { Task { await basicOnly.shutdown(); await bodyOnly.shutdown(); await publicClient.shutdown() } }

        for (server, method) in [(basicOnly, OAuth2ClientAuthentication.basic), (bodyOnly, .body), (publicClient, .basic)] {
            let auth = authenticator(
                server, credential: credential(from: server.issueTokens(lifetime: .seconds(-1))), clientAuthentication: method)
            let session = Session(interceptors: [auth])
            _ = try await session.request(server.url("/resource/x")).validate().data()
            await session.shutdown()
        }
        #expect(basicOnly.clientAuthenticationsSeen == ["basic"])
        #expect(bodyOnly.clientAuthenticationsSeen == ["body"])
        #expect(publicClient.clientAuthenticationsSeen == ["none"])

        let wrong = authenticator(basicOnly, credential: credential(from: basicOnly.issueTokens(lifetime: .seconds(-1))), clientAuthentication: .body)
        let session = Session(interceptors: [wrong])
        defer { Task { await session.shutdown() } }
        do {
            _ = try await session.request(basicOnly.url("/resource/y")).data()
            Issue.record("expected invalid_client")
        } catch {
            #expect(error.kind == .authenticationFailed)
            #expect(error.message.contains("invalid_client"))
        }
    }

    @Test func invalidTokenChallengeDetection() async throws {
        let quiet = try await OAuth2TestServer.start(sendsInvalidTokenChallenge: false)
        defer { Task { await quiet.shutdown() } }
        let tokens = quiet.issueTokens()
        quiet.expireAccessTokens()
        let strict = authenticator(quiet, credential: credential(from: tokens, knownExpiry: false), requiresInvalidTokenChallenge: true)
        let session = Session(interceptors: [strict])
        defer { Task { await session.shutdown() } }
        #expect(try await session.request(quiet.url("/resource/a")).response.status.code == 401)
        #expect(quiet.tokenEndpointCalls == 0, "a 401 without error=\"invalid_token\" is not an expired token")

        let chatty = try await OAuth2TestServer.start(sendsInvalidTokenChallenge: true)
        defer { Task { await chatty.shutdown() } }
        let chattyTokens = chatty.issueTokens()
        chatty.expireAccessTokens()
        let auth = authenticator(chatty, credential: credential(from: chattyTokens, knownExpiry: false), requiresInvalidTokenChallenge: true)
        let other = Session(interceptors: [auth])
        defer { Task { await other.shutdown() } }
        let response = try await other.request(chatty.url("/resource/b")).response
        #expect(response.status.code == 200)
        #expect(response.attempts == 2)
        #expect(chatty.tokenEndpointCalls == 1)
    }

    @Test func aServerThatRejectsFreshTokensCausesNoLoopAndTheWindowStopsRefreshing() async throws {
        let server = try await OAuth2TestServer.start()
        defer { Task { await server.shutdown() } }
        server.setRejectsEveryToken(true)
        let auth = authenticator(
            server, credential: credential(from: server.issueTokens(), knownExpiry: false),
            refreshWindow: RefreshWindow(maximumRefreshes: 3, interval: .seconds(30)))
        let session = Session(interceptors: [auth])
        defer { Task { await session.shutdown() } }
        var errors: [CurlewError] = []
        for index in 0..<5 {
            do {
                _ = try await session.request(server.url("/resource/\(index)")).data()
            } catch {
                errors.append(error)
            }
        }
        #expect(errors.count == 5)
        #expect(errors.allSatisfy { $0.kind == .authenticationFailed })
        #expect(errors.prefix(3).allSatisfy { $0.message.contains("refreshed while this request was under way") })
        #expect(errors.suffix(2).allSatisfy { $0.message.contains("excessive") })
        #expect(server.tokenEndpointCalls == 3, "each request refreshed at most once, then the window said no")
    }

    @Test func proactiveRefreshWithinTheLeeway() async throws {
        let server = try await OAuth2TestServer.start()
        defer { Task { await server.shutdown() } }
        let tokens = server.issueTokens(lifetime: .seconds(10))
        let auth = authenticator(server, credential: credential(from: tokens))
        let session = Session(interceptors: [auth])
        defer { Task { await session.shutdown() } }
        let resource = try await session.request(server.url("/resource/soon")).validate().decode(Resource.self)
        #expect(resource.token != tokens.accessToken, "a token 10 s from expiry is refreshed first (leeway 30 s)")
        #expect(server.received.filter { $0.path.hasPrefix("/resource") }.map(\.authorization) == ["Bearer \(resource.token)"])
    }

    @Test func aFailingOnRefreshHandlerKeepsTheNewCredential() async throws {
        struct StoreDown: Error {}
        let server = try await OAuth2TestServer.start()
        defer { Task { await server.shutdown() } }
        let auth = OAuth2Authenticator(
            credential: credential(from: server.issueTokens(lifetime: .seconds(-1))), tokenURL: server.tokenURL,
            clientID: server.clientID, clientSecret: server.clientSecret, scope: .hosts(["127.0.0.1"]),
            onRefresh: { _ in throw StoreDown() })
        let session = Session(interceptors: [auth])
        defer { Task { await session.shutdown() } }
        _ = try await session.request(server.url("/resource/x")).validate().data()
        #expect(await auth.lastRefreshHandlerError is StoreDown)
        #expect(await auth.credentialVersion == 1)
    }

    @Test func noCredentialFailsInScopeOnly() async throws {
        let server = try await OAuth2TestServer.start()
        defer { Task { await server.shutdown() } }
        let auth = authenticator(server, credential: nil)
        let session = Session(interceptors: [auth])
        defer { Task { await session.shutdown() } }
        do {
            _ = try await session.request(server.url("/resource/x")).data()
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .authenticationFailed)
        }
        #expect(try await session.request(server.localhostURL("/resource/x")).response.status.code == 401)
    }
}
