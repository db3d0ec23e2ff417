import Curlew
import CurlewTesting
import Foundation
import Testing
import TestServer

/// A small app's API client, as a user would write it, tested twice: once only against stubs
/// (no socket), once against the real servers (the OAuth2 test server and the test server). The
/// same client code passes both: OAuth2 refresh after a 401, a retry after a 503, a paginated
/// decode that follows `Link: rel="next"`, and a download with progress.
@Suite("An app's API client, against stubs and against real servers")
struct AppClientTests {
    /// The client under test: it knows its endpoints and its session, nothing of stubs.
    struct ShopClient {
        struct Endpoints {
            let profile: URL
            let status: URL
            let firstPage: URL
            let archive: URL
        }

        struct Page: Decodable { let page: String }

        let session: Session
        let endpoints: Endpoints

        static func session(configuration: SessionConfiguration, tokenURL: URL, scope: URL, credential: OAuth2Credential) -> (Session, OAuth2Authenticator) {
            let auth = OAuth2Authenticator(
                credential: credential, tokenURL: tokenURL, clientID: "test-client", clientSecret: "s3cr:et &more",
                scope: .urlPrefixes([scope]), refreshWindow: nil)
            let retry = RetryPolicy(retryLimit: 2, backoffScale: .milliseconds(1), jitter: .disabled)
            return (Session(configuration: configuration, interceptors: [auth, retry]), auth)
        }

        /// The profile, behind the bearer token.
        func profile() async throws -> Data { try await session.request(endpoints.profile).validate().data() }
        /// A status call the server sometimes answers with 503.
        func status() async throws -> Int { try await session.request(endpoints.status).validate().response.status.code }
        /// Every page, following `Link: <…>; rel="next"`.
        func allPages() async throws -> [String] {
            var pages: [String] = []
            var next: URL? = endpoints.firstPage
            while let url = next, pages.count < 10 {
                let response = try await session.request(url).validate().response
                pages.append(try JSONDecoder().decode(Page.self, from: response.value).page)
                next = PaginationLinks(response.head, baseURL: url).next
            }
            return pages
        }
        /// The archive, with the fractions of its progress events.
        func downloadArchive(to file: URL) async throws -> (URL, [Int64]) {
            let download = session.download(endpoints.archive, to: .file(file, options: [.removePreviousFile])).validate()
            var progress: [Int64] = []
            for try await event in download.events {
                if case .downloadProgress(let value) = event { progress.append(value.completedBytes) }
            }
            return (try await download.fileURL(), progress)
        }
    }

    private static func exercise(_ client: ShopClient, archiveSize: Int, folder: URL) async throws {
        #expect(!(try await client.profile()).isEmpty, "the profile came after one refresh")
        #expect(try await client.status() == 200, "the 503 was retried")
        #expect(try await client.allPages() == ["1", "2", "3"])
        let (file, progress) = try await client.downloadArchive(to: folder.appendingPathComponent("archive.bin"))
        #expect((try Data(contentsOf: file)).count == archiveSize)
        #expect(progress.last == Int64(archiveSize), "\(progress)")
    }

    private static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-app-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        return folder
    }

    @Test func theClientAgainstStubsOnly() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let api = "https://api.shop.test"
        let stubs = HTTPStubs()
        let token = stubs.register(.post, "https://auth.shop.test/token",
            .json(#"{"access_token":"fresh","token_type":"Bearer","expires_in":3600,"refresh_token":"r2"}"#))
        let profile = stubs.register(
            .header("Authorization", "Bearer stale") && .url("\(api)/me"), responses: [.status(401, headers: ["WWW-Authenticate": "Bearer"])])
        stubs.register(.header("Authorization", "Bearer fresh") && .url("\(api)/me"), responses: [.json(#"{"name":"Ada"}"#)])
        let status = stubs.register(.get, "\(api)/status", .status(503), .json("{}"))
        for page in 1...3 {
            let link = page < 3 ? ["Link": "<\(api)/items?page=\(page + 1)>; rel=\"next\""] : [:]
            stubs.register(.get, "\(api)/items?page=\(page)", .json(#"{"page":"\#(page)"}"#, headers: KeyValuePairs(dictionaryLiteral: link.first ?? ("X-Last", "1"))))
        }
        let archiveSize = 256 * 1024
        stubs.register(.get, "\(api)/archive", .chunks((0..<8).map { _ in StubChunk(Data(count: archiveSize / 8)) }))

        let (session, _) = ShopClient.session(
            configuration: .stubbed(by: stubs), tokenURL: URL(string: "https://auth.shop.test/token")!,
            scope: URL(string: api)!, credential: OAuth2Credential(accessToken: "stale", refreshToken: "r1", expiresAt: nil))
        let client = ShopClient(session: session, endpoints: .init(
            profile: URL(string: "\(api)/me")!, status: URL(string: "\(api)/status")!,
            firstPage: URL(string: "\(api)/items?page=1")!, archive: URL(string: "\(api)/archive")!))
        try await Self.exercise(client, archiveSize: archiveSize, folder: folder)
        #expect(stubs.matchCount(of: token) == 1)
        #expect(stubs.matchCount(of: profile) == 1)
        #expect(stubs.matchCount(of: status) == 2)
        #expect(stubs.requests(answeredBy: token).first?.bodyText?.contains("refresh_token=r1") == true)
        try stubs.verifyAllMatched()
        await session.shutdown()
    }

    @Test func theSameClientAgainstRealServers() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let oauth = try await OAuth2TestServer.start()
        let server = try await TestServer.start()
        let issued = oauth.issueTokens()
        oauth.expireAccessTokens()
        var configuration = SessionConfiguration()
        configuration.proxy = .direct
        let (session, _) = ShopClient.session(
            configuration: configuration, tokenURL: oauth.tokenURL, scope: oauth.url("/resource"),
            credential: OAuth2Credential(accessToken: issued.accessToken, refreshToken: issued.refreshToken, expiresAt: nil))
        // `/response-headers` answers its query as JSON and as header fields: each page's query
        // carries the `Link` field that names the next page (whose query carries its own).
        func page(_ number: Int) -> String {
            var text = server.url("/response-headers").absoluteString + "?page=\(number)"
            if number < 3 {
                text += "&Link=" + ("<" + page(number + 1) + ">; rel=\"next\"").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            }
            return text
        }
        let archiveSize = 256 * 1024
        let client = ShopClient(session: session, endpoints: .init(
            profile: oauth.url("/resource/me"), status: server.url("/flaky/app-\(UUID().uuidString)?failures=1"),
            firstPage: URL(string: page(1))!, archive: server.url("/bytes/\(archiveSize)")))
        try await Self.exercise(client, archiveSize: archiveSize, folder: folder)
        #expect(oauth.successfulRefreshes == 1)
        await session.shutdown()
        await oauth.shutdown()
        try await server.shutdown()
    }
}
