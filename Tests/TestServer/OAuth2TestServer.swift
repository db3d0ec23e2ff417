import Foundation
import Synchronization

/// A local OAuth2 authorization and resource server for tests, on its own random port.
///
/// - `POST /token`: the `refresh_token` grant of RFC 6749 §6, form-encoded, with client
///   authentication by HTTP Basic or body parameters. Issues short-lived access tokens,
///   rotates refresh tokens (the old one stops working), answers `invalid_grant`,
///   `invalid_client`, `unsupported_grant_type` and `invalid_request` errors, and counts calls.
/// - `/resource[/…]` (any method): 200 with `{"token","path"}` for a valid, unexpired
///   `Authorization: Bearer` token; else 401 with `WWW-Authenticate: Bearer realm="test"`
///   (plus `error="invalid_token"` when a token was sent and challenges are on).
///   ``holdResources(untilArrivals:)`` holds its answers until that many have arrived.
/// - `/redirect?to=URL`: 302 to `URL`.
///
/// Every request is recorded with its host, `Authorization` field, target, header lines and
/// body. ``setTokenAnswer(_:)`` makes the token endpoint answer anything (hostile on purpose).
///
/// Tests about ordering hold the token endpoint (``holdTokenEndpoint()``) and release it when
/// the clients are where the test wants them (``releaseTokenEndpoint()``): a gate, not a delay.
public final class OAuth2TestServer: Sendable {
    /// How clients must authenticate at the token endpoint.
    public enum ClientAuthentication: Sendable {
        /// HTTP Basic only.
        case basic
        /// `client_id` / `client_secret` body parameters only.
        case body
        /// Either.
        case either
    }

    /// One request the server received.
    public struct Received: Sendable {
        /// The method.
        public let method: String
        /// The host name of the `Host` field.
        public let host: String
        /// The path.
        public let path: String
        /// The `Authorization` field, if any.
        public let authorization: String?
        /// The request target as sent (path and query).
        public let target: String
        /// The header lines as sent.
        public let headerLines: [(name: String, value: String)]
        /// The body, as text.
        public let body: String

        /// Whether `text` occurs anywhere in the request: target, header lines or body.
        public func contains(_ text: String) -> Bool {
            target.contains(text) || body.contains(text) || headerLines.contains { $0.value.contains(text) }
        }
    }

    private struct State {
        var accessTokens: [String: Date] = [:]
        var refreshTokens: Set<String> = []
        var counter = 0
        var tokenCalls = 0
        var successfulRefreshes = 0
        var usedRefreshTokens: [String] = []
        var clientAuthenticationsSeen: [String] = []
        var received: [Received] = []
        var tokenGate: TestGate?
        var resourceGate: TestGate?
        var resourceArrivals = 0
        var resourceArrivalsToOpen = 0
        var accessTokenLifetime: TimeInterval
        var failsEveryRefresh = false
        var rejectsEveryToken = false
        var tokenAnswer: ScriptedResponse?
    }

    private let server: ScriptedHTTPServer
    private let state: Mutex<State>

    /// The client identifier the token endpoint accepts.
    public let clientID: String
    /// The client secret it accepts; nil for a public client.
    public let clientSecret: String?
    /// How clients must authenticate.
    public let clientAuthentication: ClientAuthentication
    /// Whether refresh tokens rotate on every refresh.
    public let rotatesRefreshTokens: Bool
    /// Whether 401s carry `error="invalid_token"`.
    public let sendsInvalidTokenChallenge: Bool

    private init(
        server: ScriptedHTTPServer, state: State, clientID: String, clientSecret: String?,
        clientAuthentication: ClientAuthentication, rotatesRefreshTokens: Bool, sendsInvalidTokenChallenge: Bool
    ) {
        self.server = server
        self.state = Mutex(state)
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.clientAuthentication = clientAuthentication
        self.rotatesRefreshTokens = rotatesRefreshTokens
        self.sendsInvalidTokenChallenge = sendsInvalidTokenChallenge
    }

    /// Starts a server.
    public static func start(
        clientID: String = "test-client", clientSecret: String? = "s3cr:et &more", clientAuthentication: ClientAuthentication = .either,
        accessTokenLifetime: Duration = .seconds(3600), rotatesRefreshTokens: Bool = true,
        sendsInvalidTokenChallenge: Bool = true
    ) async throws -> OAuth2TestServer {
        let seconds = Double(accessTokenLifetime.components.seconds) + Double(accessTokenLifetime.components.attoseconds) / 1e18
        let state = State(accessTokenLifetime: seconds)
        let box = Mutex<OAuth2TestServer?>(nil)
        let server = try await ScriptedHTTPServer.start { request in
            guard let owner = box.withLock({ $0 }) else { return .text("starting", status: 503) }
            return await owner.handle(request)
        }
        let owner = OAuth2TestServer(
            server: server, state: state, clientID: clientID, clientSecret: clientSecret,
            clientAuthentication: clientAuthentication, rotatesRefreshTokens: rotatesRefreshTokens,
            sendsInvalidTokenChallenge: sendsInvalidTokenChallenge)
        box.withLock { $0 = owner }
        return owner
    }

    // MARK: For tests

    /// The token endpoint.
    public var tokenURL: URL { server.url("/token") }
    /// `http://127.0.0.1:PORT` + `path`.
    public func url(_ path: String) -> URL { server.url(path) }
    /// `http://localhost:PORT` + `path`: the same server under another host name.
    public func localhostURL(_ path: String) -> URL { server.localhostURL(path) }

    /// Issues an access and refresh token pair, as a login would; `lifetime` overrides the
    /// server's access token lifetime (negative: already expired).
    public func issueTokens(lifetime: Duration? = nil) -> (accessToken: String, refreshToken: String, expiresAt: Date) {
        state.withLock { state in
            let seconds = lifetime.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 }
            return Self.issue(&state, lifetime: seconds ?? state.accessTokenLifetime, refresh: true)
        }
    }

    /// Makes every access token issued so far invalid.
    public func expireAccessTokens() {
        state.withLock { $0.accessTokens.removeAll() }
    }

    /// Makes every refresh token issued so far invalid (`invalid_grant`).
    public func revokeRefreshTokens() {
        state.withLock { $0.refreshTokens.removeAll() }
    }

    /// Holds every token request (counted in ``tokenEndpointCalls`` as it arrives) until
    /// ``releaseTokenEndpoint()``.
    public func holdTokenEndpoint() {
        state.withLock { $0.tokenGate = TestGate() }
    }

    /// Lets the held token requests, and every later one, through.
    public func releaseTokenEndpoint() {
        state.withLock { $0.tokenGate }?.open()
    }

    /// How many token requests are being held now.
    public var heldTokenCalls: Int { state.withLock { $0.tokenGate }?.waiting ?? 0 }

    /// Holds the answers of `/resource` until `count` resource requests have arrived (counted
    /// from now); then they, and every later one, are answered. So that every request of a
    /// burst is sent before any of them sees a 401.
    public func holdResources(untilArrivals count: Int) {
        state.withLock {
            $0.resourceGate = TestGate()
            $0.resourceArrivals = 0
            $0.resourceArrivalsToOpen = count
        }
    }

    /// The lifetime of the access tokens the token endpoint issues from now on.
    public func setAccessTokenLifetime(_ lifetime: Duration) {
        state.withLock {
            $0.accessTokenLifetime = Double(lifetime.components.seconds) + Double(lifetime.components.attoseconds) / 1e18
        }
    }

    /// When true, the token endpoint answers every refresh with a 500.
    public func setFailsEveryRefresh(_ fails: Bool) {
        state.withLock { $0.failsEveryRefresh = fails }
    }

    /// The answer of every later token request, whatever it asks (a hostile or broken token
    /// endpoint); nil goes back to the OAuth2 rules. The calls are still counted and held.
    public func setTokenAnswer(_ answer: ScriptedResponse?) {
        state.withLock { $0.tokenAnswer = answer }
    }

    /// When true, the resource rejects every token, even fresh ones.
    public func setRejectsEveryToken(_ rejects: Bool) {
        state.withLock { $0.rejectsEveryToken = rejects }
    }

    /// How many requests reached the token endpoint.
    public var tokenEndpointCalls: Int { state.withLock { $0.tokenCalls } }
    /// How many refreshes succeeded.
    public var successfulRefreshes: Int { state.withLock { $0.successfulRefreshes } }
    /// The refresh tokens presented to the token endpoint, in order.
    public var usedRefreshTokens: [String] { state.withLock { $0.usedRefreshTokens } }
    /// How each token request authenticated the client: `basic`, `body` or `none`.
    public var clientAuthenticationsSeen: [String] { state.withLock { $0.clientAuthenticationsSeen } }
    /// Every request received, in order.
    public var received: [Received] { state.withLock { $0.received } }

    /// Answers the held resource requests, and every later one, whatever has arrived.
    public func releaseResources() {
        state.withLock { $0.resourceGate }?.open()
    }

    /// Stops the server, opening any gate first so that no handler stays blocked.
    public func shutdown() async {
        let gates = state.withLock { [$0.tokenGate, $0.resourceGate] }
        for gate in gates { gate?.open() }
        await server.shutdown()
    }

    // MARK: Routes

    private func handle(_ request: ScriptedRequest) async -> ScriptedResponse {
        state.withLock {
            $0.received.append(Received(
                method: request.method, host: request.hostName, path: request.path,
                authorization: request.header("Authorization"), target: request.rawTarget, headerLines: request.headerLines,
                body: String(decoding: request.body, as: UTF8.self)))
        }
        if request.path == "/token" { return await token(request) }
        if request.path == "/resource" || request.path.hasPrefix("/resource/") {
            await resourceArrived()
            return resource(request)
        }
        if request.path == "/redirect", let target = request.query["to"] {
            return ScriptedResponse(status: 302, headers: [("Location", target)])
        }
        return .json(["error": "no route for \(request.path)"], status: 404)
    }

    /// Counts a resource request and, while ``holdResources(untilArrivals:)`` holds, waits.
    private func resourceArrived() async {
        let (gate, opens) = state.withLock { state -> (TestGate?, Bool) in
            state.resourceArrivals += 1
            return (state.resourceGate, state.resourceArrivals >= state.resourceArrivalsToOpen)
        }
        guard let gate else { return }
        if opens { gate.open() }
        await gate.wait()
    }

    private func resource(_ request: ScriptedRequest) -> ScriptedResponse {
        let header = request.header("Authorization") ?? ""
        let token = header.lowercased().hasPrefix("bearer ") ? String(header.dropFirst(7)) : nil
        let valid = state.withLock { state -> Bool in
            guard let token, !state.rejectsEveryToken, let expiry = state.accessTokens[token] else { return false }
            return expiry > Date()
        }
        if let token, valid {
            return .json(["token": token, "path": request.path])
        }
        var challenge = "Bearer realm=\"test\""
        if token != nil && sendsInvalidTokenChallenge {
            challenge += ", error=\"invalid_token\", error_description=\"The access token expired\""
        }
        return .json(["error": "unauthorized"], status: 401, headers: [("WWW-Authenticate", challenge)])
    }

    private func token(_ request: ScriptedRequest) async -> ScriptedResponse {
        let (gate, answer) = state.withLock { state -> (TestGate?, ScriptedResponse?) in
            state.tokenCalls += 1
            return (state.tokenGate, state.tokenAnswer)
        }
        await gate?.wait()
        if let answer { return answer }
        guard request.method == "POST" else { return oauthError("invalid_request", "use POST", status: 405) }
        guard request.header("Content-Type")?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true else {
            return oauthError("invalid_request", "the body must be application/x-www-form-urlencoded")
        }
        let form = request.form
        if let failure = authenticateClient(request, form: form) { return failure }
        guard form["grant_type"] == "refresh_token" else {
            return oauthError("unsupported_grant_type", "only refresh_token is supported")
        }
        guard let presented = form["refresh_token"], !presented.isEmpty else {
            return oauthError("invalid_request", "refresh_token is missing")
        }
        let outcome = state.withLock { state -> Result<[String: Any], OAuthFailure> in
            state.usedRefreshTokens.append(presented)
            if state.failsEveryRefresh { return .failure(OAuthFailure(code: "server_error", status: 500)) }
            guard state.refreshTokens.contains(presented) else { return .failure(OAuthFailure(code: "invalid_grant", status: 400)) }
            if rotatesRefreshTokens { state.refreshTokens.remove(presented) }
            let issued = Self.issue(&state, lifetime: state.accessTokenLifetime, refresh: rotatesRefreshTokens)
            state.successfulRefreshes += 1
            var body: [String: Any] = [
                "access_token": issued.accessToken, "token_type": "bearer",
                "expires_in": Int(state.accessTokenLifetime.rounded(.up)),
            ]
            if rotatesRefreshTokens { body["refresh_token"] = issued.refreshToken }
            return .success(body)
        }
        switch outcome {
        case .success(let body):
            return .json(body, headers: [("Cache-Control", "no-store"), ("Pragma", "no-cache")])
        case .failure(let failure):
            let description = failure.code == "invalid_grant" ? "the refresh token is invalid, expired or was rotated" : "the token service failed"
            return oauthError(failure.code, description, status: failure.status)
        }
    }

    private struct OAuthFailure: Error {
        let code: String
        let status: Int
    }

    /// Nil when the client authenticated as configured, else the error response.
    private func authenticateClient(_ request: ScriptedRequest, form: FormPairs) -> ScriptedResponse? {
        var presentedID: String?
        var presentedSecret: String?
        var method = "none"
        if let header = request.header("Authorization"), header.lowercased().hasPrefix("basic ") {
            method = "basic"
            let decoded = Data(base64Encoded: String(header.dropFirst(6))).map { String(decoding: $0, as: UTF8.self) } ?? ""
            let parts = decoded.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2 {
                // RFC 6749 §2.3.1: both are form-encoded; what does not decode is refused, not guessed.
                func decode(_ part: Substring) -> String? { part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding }
                guard let id = decode(parts[0]), let secret = decode(parts[1]) else {
                    return oauthError("invalid_client", "the Basic credentials are not form-encoded", status: 401)
                }
                presentedID = id
                presentedSecret = secret
            }
        } else if form["client_secret"] != nil {
            method = "body"
            presentedID = form["client_id"]
            presentedSecret = form["client_secret"]
        } else {
            presentedID = form["client_id"]
        }
        state.withLock { $0.clientAuthenticationsSeen.append(method) }
        let challenge = [("WWW-Authenticate", "Basic realm=\"token\"")]
        guard let clientSecret else {
            return presentedID == clientID ? nil : oauthError("invalid_client", "unknown client", status: 401, headers: challenge)
        }
        switch (clientAuthentication, method) {
        case (.basic, "body"), (.body, "basic"), (_, "none"):
            return oauthError("invalid_client", "client authentication by \(method) is not accepted", status: 401, headers: challenge)
        default:
            break
        }
        guard presentedID == clientID, presentedSecret == clientSecret else {
            return oauthError("invalid_client", "wrong client credentials", status: 401, headers: challenge)
        }
        return nil
    }

    private func oauthError(
        _ code: String, _ description: String, status: Int = 400, headers: [(String, String)] = []
    ) -> ScriptedResponse {
        .json(["error": code, "error_description": description], status: status, headers: headers + [("Cache-Control", "no-store")])
    }

    private static func issue(_ state: inout State, lifetime: TimeInterval, refresh: Bool)
        -> (accessToken: String, refreshToken: String, expiresAt: Date)
    {
        state.counter += 1
        let access = "at-\(state.counter)-\(UUID().uuidString.prefix(8))"
        let refreshToken = "rt-\(state.counter)-\(UUID().uuidString.prefix(8))"
        let expiry = Date().addingTimeInterval(lifetime)
        state.accessTokens[access] = expiry
        if refresh { state.refreshTokens.insert(refreshToken) }
        return (access, refreshToken, expiry)
    }
}
