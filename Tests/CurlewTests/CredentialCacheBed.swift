import Foundation
import HTTPTypes
import Synchronization
import TestServer

@testable import Curlew

/// One HTTP cache shared by sessions, one user attaching credentials or cookies in one of the
/// ways Curlew has (``Way``), against a scripted server that records what each request carried
/// on the wire.
///
/// Every path answers `200` with the body
/// `n=<count of the path> auth=<Authorization> cookie=<Cookie> key=<X-Api-Key or access_token>`
/// (`-` for a missing field), so a test tells whose response it got. The query drives the rest:
/// `cc` is the `Cache-Control` (default `public, max-age=60`); `etag` adds an `ETag` and answers
/// `304` to a matching `If-None-Match`; `hold=1` holds the path's first request at ``gate``.
final class CredentialCacheBed: Sendable {
    /// A user of the shared sessions.
    enum User: String, Sendable, CaseIterable {
        case alice, bob

        var password: String { "\(rawValue)-pw-Z1" }
        var token: String { "\(rawValue)-token-Q7" }
        var basic: String { "Basic " + Data("\(rawValue):\(password)".utf8).base64EncodedString() }
    }

    /// Each way a request can carry credentials or cookies.
    enum Way: String, Sendable, CaseIterable, CustomStringConvertible {
        case authenticate, requestOptionsCredential, credentialStore, urlUserInfo, oauth2Adapter, authorizationField,
            sessionDefaultAuthorization, cookieField, cookieJar, requestCookieStorage, apiKeyField, queryToken

        var description: String { rawValue }

        /// Whether it is a credential (RFC 9111 §3.5 applies) rather than a cookie.
        var isCredential: Bool { self != .cookieField && self != .cookieJar && self != .requestCookieStorage }

        /// The `Authorization`, `Cookie` and key (an `X-Api-Key` field or an `access_token` query
        /// value) the server sees from `user`'s request this way.
        func wire(_ user: User) -> (authorization: String?, cookie: String?, key: String?) {
            switch self {
            case .authenticate, .requestOptionsCredential, .credentialStore, .urlUserInfo: (user.basic, nil, nil)
            case .oauth2Adapter, .authorizationField, .sessionDefaultAuthorization: ("Bearer \(user.token)", nil, nil)
            case .cookieField, .cookieJar, .requestCookieStorage: (nil, "sid=\(user.rawValue)", nil)
            case .apiKeyField, .queryToken: (nil, nil, user.token)
            }
        }
    }

    /// What one request carried.
    struct Seen: Sendable, Equatable {
        var path: String
        var authorization: String?
        var cookie: String?
        var key: String?
        var ifNoneMatch: String?
    }

    /// Every request the server received, in order.
    final class Log: Sendable {
        private let entries = Mutex<[Seen]>([])

        /// Appends `seen`; returns how many requests its path has had, this one included.
        func append(_ seen: Seen) -> Int {
            entries.withLock { entries in
                entries.append(seen)
                return entries.filter { $0.path == seen.path }.count
            }
        }

        var all: [Seen] { entries.withLock { $0 } }
    }

    let server: ScriptedHTTPServer
    let cache: HTTPCache
    let way: Way
    let gate: TestGate
    /// A session with nothing of its own.
    let anonymous: Session
    /// Each user's own session, for the ways that attach at the session (store, default
    /// header, cookie jar); the other ways use ``anonymous`` and attach per request.
    private let userSessions: [User: Session]
    /// Each user's own cookie storage, for ``Way/requestCookieStorage`` (given per request to
    /// the anonymous session, which has none).
    private let userJars: [User: CookieJar]
    private let log: Log
    let name = "p-\(UUID().uuidString)"

    private init(server: ScriptedHTTPServer, cache: HTTPCache, way: Way, log: Log, gate: TestGate) throws {
        self.server = server
        self.cache = cache
        self.way = way
        self.log = log
        self.gate = gate
        func session(_ change: (inout SessionConfiguration) throws -> Void = { _ in }) rethrows -> Session {
            var configuration = SessionConfiguration()
            configuration.cache = cache
            configuration.acceptLanguage = nil
            try change(&configuration)
            return Session(configuration: configuration)
        }
        anonymous = try session()
        var sessions: [User: Session] = [:]
        var jars: [User: CookieJar] = [:]
        for user in User.allCases {
            switch way {
            case .credentialStore:
                sessions[user] = try session { configuration in
                    try configuration.httpCredentials.set(
                        HTTPCredential(username: user.rawValue, password: user.password, method: .basic), for: server.baseURL)
                }
            case .sessionDefaultAuthorization:
                sessions[user] = session { $0.defaultHeaders[.authorization] = "Bearer \(user.token)" }
            case .cookieJar:
                let jar = CookieJar()
                jar.storeCookies(setCookieFields: ["sid=\(user.rawValue)"], for: server.baseURL)
                sessions[user] = session { $0.cookieStorage = jar }
            case .requestCookieStorage:
                let jar = CookieJar()
                jar.storeCookies(setCookieFields: ["sid=\(user.rawValue)"], for: server.baseURL)
                jars[user] = jar
            default:
                break
            }
        }
        userSessions = sessions
        userJars = jars
    }

    /// Runs `body` with a bed for `way` whose cache is `cache` (a memory cache by default), then
    /// shuts everything down.
    static func with(
        _ way: Way, cache: HTTPCache? = nil, _ body: (CredentialCacheBed) async throws -> Void
    ) async throws {
        let log = Log()
        let gate = TestGate()
        let server = try await ScriptedHTTPServer.start { request in
            await respond(request, log: log, gate: gate)
        }
        let bed: CredentialCacheBed
        do {
            bed = try CredentialCacheBed(server: server, cache: try cache ?? HTTPCache(), way: way, log: log, gate: gate)
        } catch {
            await server.shutdown()
            throw error
        }
        do {
            try await body(bed)
        } catch {
            await bed.shutdown()
            throw error
        }
        await bed.shutdown()
    }

    private func shutdown() async {
        gate.open()
        for session in [anonymous] + Array(userSessions.values) {
            await session.shutdown()
        }
        await server.shutdown()
    }

    private static func respond(_ request: ScriptedRequest, log: Log, gate: TestGate) async -> ScriptedResponse {
        let record = Seen(
            path: request.path, authorization: request.header("Authorization"), cookie: request.header("Cookie"),
            key: request.header("X-Api-Key") ?? request.query["access_token"], ifNoneMatch: request.header("If-None-Match"))
        let count = log.append(record)
        if request.query["hold"] == "1", count == 1 { await gate.wait() }
        var headers = [("Cache-Control", request.query["cc"] ?? "public, max-age=60")]
        if let tag = request.query["etag"] {
            headers.append(("ETag", tag))
            if record.ifNoneMatch == tag { return ScriptedResponse(status: 304, headers: headers) }
        }
        return .text(
            "n=\(count) auth=\(record.authorization ?? "-") cookie=\(record.cookie ?? "-") key=\(record.key ?? "-")", headers: headers)
    }

    /// `/{name}{suffix}` with `query`, for `user` (whose user information goes into the URL when
    /// the bed's way says so).
    func url(_ suffix: String = "", query: [String: String] = [:], user: User? = nil) -> URL {
        var components = URLComponents(url: server.url("/\(name)\(suffix)"), resolvingAgainstBaseURL: false)!
        if !query.isEmpty { components.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) } }
        if way == .urlUserInfo, let user {
            components.user = user.rawValue
            components.password = user.password
        }
        if way == .queryToken, let user {
            components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "access_token", value: user.token)]
        }
        return components.url!
    }

    /// What the server saw for `/{name}{suffix}`, in order.
    func seen(_ suffix: String = "") -> [Seen] {
        log.all.filter { $0.path == "/\(name)\(suffix)" }
    }

    /// The body a request of `user` (nil: nobody) gets from the server when it is the path's
    /// `count`th request.
    func body(_ count: Int, _ user: User?) -> String {
        let wire = user.map { way.wire($0) }
        return "n=\(count) auth=\(wire?.authorization ?? "-") cookie=\(wire?.cookie ?? "-") key=\(wire?.key ?? "-")"
    }

    /// A GET of `/{name}{suffix}` by `user` attaching credentials the bed's way, or by nobody.
    func get(_ suffix: String = "", query: [String: String] = [:], user: User?) async throws -> (body: String, status: CacheStatus?) {
        let url = url(suffix, query: query, user: user)
        let response: Response<Data>
        guard let user else {
            response = try await anonymous.request(url).response
            return (String(decoding: response.value, as: UTF8.self), response.cacheStatus)
        }
        switch way {
        case .authenticate:
            response = try await anonymous.request(url).authenticate(username: user.rawValue, password: user.password, method: .basic).response
        case .requestOptionsCredential:
            var options = RequestOptions()
            options.httpCredential = HTTPCredential(username: user.rawValue, password: user.password, method: .basic)
            response = try await anonymous.request(url, options: options).response
        case .credentialStore, .sessionDefaultAuthorization, .cookieJar:
            response = try await userSessions[user]!.request(url).response
        case .urlUserInfo, .queryToken:
            response = try await anonymous.request(url).response
        case .apiKeyField:
            response = try await anonymous.request(url, headers: ["X-Api-Key": user.token]).response
        case .oauth2Adapter:
            let authenticator = OAuth2Authenticator(
                credential: OAuth2Credential(accessToken: user.token, refreshToken: nil, expiresIn: .seconds(3600)),
                tokenURL: server.url("/token"), clientID: "app", scope: .hosts(["127.0.0.1"]))
            response = try await anonymous.request(url).intercept(with: authenticator).response
        case .authorizationField:
            response = try await anonymous.request(url, headers: ["Authorization": "Bearer \(user.token)"]).response
        case .cookieField:
            response = try await anonymous.request(url, headers: ["Cookie": "sid=\(user.rawValue)"]).response
        case .requestCookieStorage:
            var options = RequestOptions()
            options.cookieStorage = .storage(userJars[user]!)
            response = try await anonymous.request(url, options: options).response
        }
        return (String(decoding: response.value, as: UTF8.self), response.cacheStatus)
    }
}
