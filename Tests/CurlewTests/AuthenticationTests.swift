@testable import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

@Suite("Authentication building blocks and a custom scheme")
struct AuthenticationTests {
    @Test func hostScopes() {
        let scope = AuthenticationScope.hosts(["API.example.com", "*.cdn.example.com", "local.test:8443", "[::1]:9000", "bad:port"])
        #expect(scope.contains(URL(string: "https://api.example.com/v1")!))
        #expect(scope.contains(URL(string: "https://api.EXAMPLE.com:8080/")!), "a host entry without a port allows any port")
        #expect(!scope.contains(URL(string: "http://api.example.com/")!), "never in clear text to a host named by name")
        #expect(scope.coverage(of: URL(string: "http://api.example.com/")!) == .insecure)
        #expect(scope.coverage(of: URL(string: "http://other.example.com/")!) == .outside)
        #expect(AuthenticationScope.hosts(["localhost", "127.0.0.1"]).contains(URL(string: "http://localhost:8080/")!), "loopback is no network")
        #expect(AuthenticationScope.hosts(["127.0.0.1"]).contains(URL(string: "http://127.0.0.1:9/")!))
        #expect(!AuthenticationScope.anyHost.contains(URL(string: "http://anything.test/")!))
        #expect(AuthenticationScope.anyHost.coverage(of: URL(string: "http://anything.test/")!) == .outside)
        #expect(!scope.contains(URL(string: "https://evil-api.example.com/")!))
        #expect(!scope.contains(URL(string: "https://api.example.com.evil.net/")!))
        #expect(scope.contains(URL(string: "https://img.cdn.example.com/a.png")!))
        #expect(!scope.contains(URL(string: "https://cdn.example.com/")!), "*. covers subdomains only")
        #expect(scope.contains(URL(string: "https://local.test:8443/")!))
        #expect(!scope.contains(URL(string: "https://local.test/")!), "443 is not 8443")
        #expect(scope.contains(URL(string: "http://[::1]:9000/")!))
        #expect(!scope.contains(URL(string: "http://bad/")!))
    }

    @Test func prefixScopes() {
        let scope = AuthenticationScope.urlPrefixes([URL(string: "https://api.example.com/v2/")!])
        #expect(scope.contains(URL(string: "https://api.example.com/v2")!))
        #expect(scope.contains(URL(string: "https://api.example.com:443/v2/users?x=1")!))
        #expect(!scope.contains(URL(string: "https://api.example.com/v20")!))
        #expect(!scope.contains(URL(string: "http://api.example.com/v2/users")!), "the scheme must match")
        let plain = AuthenticationScope.urlPrefixes([URL(string: "http://intranet.example/api")!])
        #expect(plain.contains(URL(string: "http://intranet.example/api/users")!), "an http prefix is sent over http, as named")
        #expect(!scope.contains(URL(string: "https://api.example.com:8443/v2/users")!), "the port must match")
        #expect(!scope.contains(URL(string: "https://other.example.com/v2/users")!))
        #expect(AuthenticationScope.anyHost.contains(URL(string: "https://anything.test/")!))
    }

    @Test func wwwAuthenticateChallenges() {
        let parsed = AuthenticationChallenge.parse(
            #"Basic realm="a, b", Bearer realm="api", error="invalid_token", error_description="The \"token\" expired""#)
        #expect(parsed.map(\.scheme) == ["basic", "bearer"])
        #expect(parsed.first?.parameters["realm"] == "a, b")
        #expect(parsed.last?.parameters["error"] == "invalid_token")
        #expect(parsed.last?.parameters["error_description"] == #"The "token" expired"#)
        #expect(AuthenticationChallenge.parse("Bearer error=invalid_token").first?.parameters["error"] == "invalid_token")
        #expect(AuthenticationChallenge.parse("Bearer").map(\.scheme) == ["bearer"])
        #expect(AuthenticationChallenge.parse(#"="broken", ,,"#).isEmpty)

        let refresher = OAuth2TokenRefresher(tokenURL: URL(string: "https://t.example/token")!, clientID: "c", requiresInvalidTokenChallenge: true)
        let request = OutgoingRequest(url: URL(string: "https://api.example/x")!)
        func error(_ challenge: String?) -> CurlewError {
            var fields = HTTPFields()
            if let challenge { fields[.wwwAuthenticate] = challenge }
            return CurlewError(.unacceptableStatus, "401", responseHead: HTTPResponse(status: .unauthorized, headerFields: fields))
        }
        #expect(refresher.didRequest(request, failDueToAuthenticationError: error(#"Bearer realm="x", error="invalid_token""#)))
        #expect(!refresher.didRequest(request, failDueToAuthenticationError: error(#"Bearer realm="x", error="insufficient_scope""#)))
        #expect(!refresher.didRequest(request, failDueToAuthenticationError: error(nil)))
    }

    @Test func tokenRequestFollowsRFC6749() throws {
        let url = URL(string: "https://auth.example/token")!
        let basic = OAuth2TokenRefresher(tokenURL: url, clientID: "my app", clientSecret: "p:ss&word", requestedScope: "read write")
        let request = basic.tokenRequest(refreshToken: "rt/1+2")
        #expect(request.method == .post)
        #expect(request.headerFields[.contentType] == "application/x-www-form-urlencoded")
        let body = try #require(request.body.flatMap { body -> String? in
            if case .data(let data) = body.storage { return String(decoding: data, as: UTF8.self) }
            return nil
        })
        #expect(body == "grant_type=refresh_token&refresh_token=rt%2F1%2B2&scope=read+write")
        let credentials = try #require(request.headerFields[.authorization]?.dropFirst("Basic ".count))
        #expect(String(decoding: try #require(Data(base64Encoded: String(credentials))), as: UTF8.self) == "my+app:p%3Ass%26word")

        let post = OAuth2TokenRefresher(tokenURL: url, clientID: "app", clientSecret: "s", clientAuthentication: .body)
        let postRequest = post.tokenRequest(refreshToken: "r")
        #expect(postRequest.headerFields[.authorization] == nil)
        let postBody = try #require(postRequest.body.flatMap { body -> String? in
            if case .data(let data) = body.storage { return String(decoding: data, as: UTF8.self) }
            return nil
        }, "the token request body is in-memory form data")
        #expect(postBody == "grant_type=refresh_token&refresh_token=r&client_id=app&client_secret=s")
    }

    @Test func tokenResponses() throws {
        let previous = OAuth2Credential(accessToken: "old", refreshToken: "keep-me", expiresAt: nil, scope: "read")
        let now = Date(timeIntervalSince1970: 1_000)
        func response(_ status: Int, _ json: String) -> Response<Data> {
            Response(
                request: OutgoingRequest(url: URL(string: "https://auth.example/token")!),
                url: URL(string: "https://auth.example/token")!, head: HTTPResponse(status: .init(code: status)),
                value: Data(json.utf8), metrics: .zero)
        }
        let fresh = try OAuth2TokenResponse.credential(
            from: response(200, #"{"access_token":"new","token_type":"bearer","expires_in":"120"}"#), replacing: previous, now: now)
        #expect(fresh.accessToken == "new")
        #expect(fresh.refreshToken == "keep-me", "without a new refresh token the old one is kept")
        #expect(fresh.expiresAt == now.addingTimeInterval(120))
        #expect(fresh.scope == "read")
        let rotated = try OAuth2TokenResponse.credential(
            from: response(200, #"{"access_token":"n2","token_type":"Bearer","refresh_token":"r2","expires_in":60.5}"#),
            replacing: previous, now: now)
        #expect(rotated.refreshToken == "r2")

        func failure(_ status: Int, _ json: String) -> CurlewError? {
            do {
                _ = try OAuth2TokenResponse.credential(from: response(status, json), replacing: previous, now: now)
                return nil
            } catch {
                return error
            }
        }
        let grant = failure(400, #"{"error":"invalid_grant","error_description":"refresh token revoked"}"#)
        #expect(grant?.kind == .authenticationFailed)
        #expect(grant?.message == "the token endpoint refused to refresh the token: invalid_grant (refresh token revoked) [HTTP 400]")
        #expect(grant?.status?.code == 400)
        #expect(failure(502, "<html>bad gateway</html>")?.message.contains("HTTP 502") == true)
        #expect(failure(200, "not json")?.message.contains("not a JSON object") == true)
        #expect(failure(200, #"{"token_type":"bearer"}"#)?.message.contains("no access_token") == true)
        #expect(failure(200, #"{"access_token":"a b"}"#)?.message.contains("cannot be sent") == true)
        #expect(failure(200, #"{"access_token":"x","token_type":"mac"}"#)?.message.contains("not supported") == true)
        #expect(failure(200, #"{"access_token":"x","expires_in":-4}"#) != nil)
        #expect(OAuth2Credential(accessToken: "secret-a", refreshToken: "secret-r", expiresAt: nil).description.contains("secret") == false)
    }

    /// A custom scheme: an API key in a header, rotated through the same machinery.
    struct APIKey: AuthenticationCredential {
        let key: String
        var expiresAt: Date? { nil }
    }

    struct APIKeyAuthenticator: Authenticator {
        static let header = HTTPField.Name("X-API-Key")!
        let rotateURL: URL
        /// Counts the rejections the interceptor asked about (``isRequest(_:authenticatedWith:)``
        /// runs in its retry, just before it joins or starts a refresh).
        var judged: CallCounter?
        /// Counts the calls of ``didRequest(_:failDueToAuthenticationError:)``.
        var asked: CallCounter?

        func apply(_ credential: APIKey, to request: inout OutgoingRequest) {
            request.headerFields[Self.header] = credential.key
        }

        func refresh(_ credential: APIKey, for session: Session) async throws -> APIKey {
            APIKey(key: try await session.uninterceptedRequest(OutgoingRequest(url: rotateURL, method: .post)).string())
        }

        func didRequest(_ request: OutgoingRequest, failDueToAuthenticationError error: CurlewError) -> Bool {
            _ = asked?.next()
            return error.status?.code == 401
        }

        func isRequest(_ request: OutgoingRequest, authenticatedWith credential: APIKey) -> Bool {
            _ = judged?.next()
            return request.headerFields[Self.header] == credential.key
        }
    }

    /// Ordered by gates, not sleeps: the 401s wait until all 30 requests were sent with the old
    /// key (so none waits in `adapt`), and `/rotate` waits until the interceptor has judged all
    /// 30 rejections, each of which then joined the one refresh — or, if the single flight
    /// broke, started its own, which `rotations == 1` catches every time.
    @Test func aCustomSchemeGetsSingleFlightRefresh() async throws {
        let rotations = CallCounter()
        let keys = CallCounter()
        let rejections = TestGate()
        let rotation = TestGate()
        let server = try await ScriptedHTTPServer.start { request in
            if request.path == "/rotate" {
                await rotation.wait()
                return .text("key-\(rotations.next() + 1)")
            }
            let key = request.header("X-API-Key") ?? "none"
            if key == "key-2" {
                _ = keys.next(key)
                return .text("ok")
            }
            if keys.next(key) >= 30 { rejections.open() }
            await rejections.wait()
            return .text("bad key", status: 401)
        }
        defer { rejections.open(); rotation.open(); Task { await server.shutdown() } }
        let judged = CallCounter()
        let auth = AuthenticationInterceptor(
            authenticator: APIKeyAuthenticator(rotateURL: server.url("/rotate"), judged: judged), credential: APIKey(key: "key-1"),
            scope: .hosts(["127.0.0.1"]))
        let session = Session(interceptors: [auth])
        defer { Task { await session.shutdown() } }
        async let texts = withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<30 {
                group.addTask { try await session.request(server.url("/data/\(index)")).string() }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        try await waitUntil { (judged.count() == 30 && rotation.waiting >= 1) || rotation.waiting >= 2 }
        let rotationsHeld = rotation.waiting
        rotation.open()
        rejections.open()  // open already, unless the wait above timed out: no hang then
        #expect(try await texts == Array(repeating: "ok", count: 30))
        #expect(rotationsHeld == 1, "one refresh for 30 rejections")
        #expect(rotations.count() == 1)
        #expect(await auth.credential?.key == "key-2")
        #expect(await auth.refreshCount == 1)
        #expect(keys.count("key-1") == 30, "every request was sent once with the old key")
        #expect(keys.count("key-2") == 30, "and once with the new one")
        #expect(keys.count("none") == 0)
    }

    /// Alamofire asks `didRequest` once per failed attempt; the interceptor's response side and
    /// its retry side both need the answer, and the second must not ask again.
    @Test(arguments: [false, true])
    func didRequestIsAskedOncePerRejectedAttempt(validating: Bool) async throws {
        let server = try await ScriptedHTTPServer.start { request in
            if request.path == "/rotate" { return .text("key-2") }
            return request.header("X-API-Key") == "key-2" ? .text("ok") : .text("bad key", status: 401)
        }
        defer { Task { await server.shutdown() } }
        let asked = CallCounter()
        let auth = AuthenticationInterceptor(
            authenticator: APIKeyAuthenticator(rotateURL: server.url("/rotate"), asked: asked), credential: APIKey(key: "key-1"),
            scope: .hosts(["127.0.0.1"]))
        let session = Session(interceptors: [auth])
        defer { Task { await session.shutdown() } }
        let request = session.request(server.url("/data"))
        if validating { request.validate() }
        #expect(try await request.string() == "ok")
        #expect(asked.count() == 1, "asked \(asked.count()) times for one rejected attempt")
    }
}
