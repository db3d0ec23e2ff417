import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

/// Resume data is written to disk by apps: it holds no credential of any kind (issue #28,
/// defect 6; issue #29). Each test downloads with one kind of credential, which the route
/// checks on every request, drops the connection, reads the resume data's JSON for the secret,
/// and resumes — the credentials come from the session (or the caller) again, never from the
/// resume data.
@Suite("Resume data holds no secret")
struct ResumeDataSecretTests {
    /// A secret no other test uses, so finding it means it leaked from here.
    private static func secret(_ label: String) -> String { "\(label)-\(UUID().uuidString)" }

    /// The CRC-32 the route compares a credential field with.
    private static func crc(_ value: String) -> String { String(TestServer.crc32(of: Data(value.utf8))) }

    /// Expects that the JSON of `resumeData` holds none of `secrets`, plain, percent-encoded or in
    /// base64 (as Basic credentials travel).
    private static func expectNoSecret(
        in resumeData: DownloadResumeData, _ secrets: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let json = String(decoding: try JSONEncoder().encode(resumeData), as: UTF8.self)
        for secret in secrets {
            let forms = [
                secret, secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? secret,
                Data(secret.utf8).base64EncodedString(),
            ]
            for form in forms {
                #expect(!json.contains(form), "the resume data holds a secret: \(json)", sourceLocation: sourceLocation)
            }
        }
        let credentialFields: Set<String> = ["authorization", "proxy-authorization", "cookie", "x-api-key"]
        #expect(!resumeData.headers.contains { credentialFields.contains($0.name.lowercased()) }, "\(json)", sourceLocation: sourceLocation)
    }

    /// Downloads `url` with `session` (the request shaped by `configure`), drops it after
    /// 20000 of 60000 bytes, checks the resume data for `secrets`, resumes it (shaped by
    /// `configure` again) and checks the finished file.
    private func dropCheckAndResume(
        _ session: Session, _ url: URL, secrets: [String],
        configure: (DownloadRequest) -> DownloadRequest = { $0 }
    ) async throws {
        let directory = try ResumeFiles.temporaryDirectory("curlew-secret")
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("secret.bin")
        let dropping = try #require(URL(string: url.absoluteString + "&drop=20000"))
        let kept = try await ResumeFiles.interrupted(configure(session.download(dropping, to: .file(destination))), to: destination)
        #expect(kept.bytesOnDisk == 20000)
        try Self.expectNoSecret(in: kept, secrets)

        let stored = try JSONDecoder().decode(DownloadResumeData.self, from: JSONEncoder().encode(kept))
        let whole = try ResumeFiles.retargeted(stored, to: stripped(stored.url, of: "drop"))
        let response = try await configure(session.download(resumingWith: whole, to: .file(destination))).validate().response
        #expect(response.head.status.code == 206, "resumed with the credentials the route wants")
        #expect(try Data(contentsOf: destination) == Data(TestServer.expectedBytes(count: 60000)))
        #expect(try ResumeFiles.contents(of: directory) == ["secret.bin"])
    }

    /// `url` without its query parameter `name`.
    private func stripped(_ url: URL, of name: String) throws -> URL {
        var components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        components.queryItems = components.queryItems?.filter { $0.name != name }
        return try #require(components.url)
    }

    @Test func aPasswordInTheURLIsNotKept() async throws {
        let server = try await Fixtures.server()
        let password = Self.secret("url-password")
        let basic = "Basic " + Data("ann:\(password)".utf8).base64EncodedString()
        var components = try #require(URLComponents(url: server.url("/resumable/url-password"), resolvingAgainstBaseURL: false))
        components.user = "ann"
        components.password = password
        components.query = "length=60000&authCRC=\(Self.crc(basic))"
        let url = try #require(components.url)
        // The resumed request has no password of its own: the caller gives it again.
        try await dropCheckAndResume(Fixtures.session, url, secrets: [password]) { download in
            download.authenticate(username: "ann", password: password, method: .basic)
        }
    }

    @Test func basicCredentialsFromAuthenticateAreNotKept() async throws {
        let server = try await Fixtures.server()
        let password = Self.secret("authenticate")
        let basic = "Basic " + Data("bob:\(password)".utf8).base64EncodedString()
        try await dropCheckAndResume(
            Fixtures.session, server.url("/resumable/authenticate?length=60000&authCRC=\(Self.crc(basic))"), secrets: [password]
        ) { $0.authenticate(username: "bob", password: password, method: .basic) }
    }

    @Test func credentialsFromTheSessionStoreAreNotKept() async throws {
        let server = try await Fixtures.server()
        let password = Self.secret("store")
        let basic = "Basic " + Data("cy:\(password)".utf8).base64EncodedString()
        var configuration = SessionConfiguration()
        try configuration.httpCredentials.set(HTTPCredential(username: "cy", password: password, method: .basic), for: server.url("/"))
        let session = Session(configuration: configuration)
        defer { Task { await session.shutdown() } }
        try await dropCheckAndResume(
            session, server.url("/resumable/store?length=60000&authCRC=\(Self.crc(basic))"), secrets: [password])
    }

    @Test func anOAuth2BearerTokenIsNotKept() async throws {
        let server = try await Fixtures.server()
        let token = Self.secret("access")
        let refresh = Self.secret("refresh")
        let authenticator = OAuth2Authenticator(
            credential: OAuth2Credential(accessToken: token, refreshToken: refresh, expiresIn: .seconds(3600)),
            tokenURL: server.url("/no-token-endpoint"), clientID: "curlew", clientSecret: Self.secret("client"),
            scope: .hosts(["127.0.0.1"]))
        let session = Session(interceptors: [authenticator])
        defer { Task { await session.shutdown() } }
        try await dropCheckAndResume(
            session, server.url("/resumable/oauth2?length=60000&authCRC=\(Self.crc("Bearer \(token)"))"),
            secrets: [token, refresh])
    }

    /// An adapter that signs requests its own way — an API key header and an OAuth2 token in the
    /// query (RFC 6750 §2.3) — whose names no redaction list knows: resume data keeps the request
    /// as the caller built it, and the adapter signs the resumed one again.
    @Test func whatAnAdapterAddsIsNotKept() async throws {
        let server = try await Fixtures.server()
        let key = Self.secret("api-key")
        let token = Self.secret("query-token")
        let adapter = Interceptor.adapter { request, _ in
            var signed = request
            signed.headerFields[HTTPField.Name("X-Api-Key")!] = key
            if var components = URLComponents(url: signed.url, resolvingAgainstBaseURL: false) {
                let items = components.queryItems ?? []
                components.queryItems = items + [URLQueryItem(name: "access_token", value: token)]
                if let url = components.url { signed.url = url }
            }
            return signed
        }
        let session = Session(interceptors: [adapter])
        defer { Task { await session.shutdown() } }
        try await dropCheckAndResume(
            session, server.url("/resumable/adapter?length=60000&keyCRC=\(Self.crc(key))"), secrets: [key, token])
    }

    /// A secret the caller put in the query itself, under a name the redaction treats as secret.
    @Test func aSecretQueryValueOfTheCallersIsNotKept() async throws {
        let server = try await Fixtures.server()
        let directory = try ResumeFiles.temporaryDirectory("curlew-secret")
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("q.bin")
        let token = Self.secret("caller-token")
        let kept = try await ResumeFiles.interrupted(
            server, "/resumable/query?length=60000&drop=20000&access_token=\(token)", to: destination)
        try Self.expectNoSecret(in: kept, [token])
        #expect(kept.url.query?.contains("length=60000") == true, "other query values stay")
        kept.discardPartialFile()
    }

    @Test func cookiesAreNotKept() async throws {
        let server = try await Fixtures.server()
        let value = Self.secret("cookie")
        let jar = CookieJar()
        jar.storeCookies(setCookieFields: ["sid=\(value); Path=/"], for: server.url("/"))
        var configuration = SessionConfiguration()
        configuration.cookieStorage = jar
        let session = Session(configuration: configuration)
        defer { Task { await session.shutdown() } }
        try await dropCheckAndResume(
            session, server.url("/resumable/cookie?length=60000&cookieCRC=\(Self.crc("sid=\(value)"))"), secrets: [value])
    }

    @Test func aProxyPasswordIsNotKept() async throws {
        let server = try await Fixtures.server()
        let password = Self.secret("proxy")
        let proxy = try await LocalProxy.start(.tinyproxy, username: "curlew", password: password)
        var configuration = SessionConfiguration()
        configuration.proxy = .explicit(.http, host: "127.0.0.1", port: proxy.port, username: "curlew", password: password)
        let session = Session(configuration: configuration)
        do {
            // tinyproxy answers 407 without the password: the resumed download went through it.
            try await dropCheckAndResume(session, server.url("/resumable/proxy?length=60000"), secrets: [password])
        } catch {
            await session.shutdown()
            await proxy.stop()
            throw error
        }
        await session.shutdown()
        await proxy.stop()
    }
}
