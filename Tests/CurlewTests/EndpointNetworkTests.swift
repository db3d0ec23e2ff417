import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

/// Endpoints and router enums over the wire: what the server received, line by line.
@Suite("Endpoints and routers against the test server")
struct EndpointNetworkTests {
    /// Adds a bearer token, as an app's token adapter would.
    struct BearerToken: RequestInterceptor {
        let token: String
        func adapt(_ request: OutgoingRequest, for session: Session) async throws -> OutgoingRequest {
            var request = request
            request.headerFields[.authorization] = "Bearer \(token)"
            return request
        }
    }

    /// Appends its name to `X-Order`, to show the order interceptors ran in.
    struct Stamp: RequestInterceptor {
        let name: String
        func adapt(_ request: OutgoingRequest, for session: Session) async throws -> OutgoingRequest {
            var request = request
            let before = request.headerFields[HTTPField.Name("X-Order")!].map { $0 + "," } ?? ""
            request.headerFields[HTTPField.Name("X-Order")!] = before + name
            return request
        }
    }

    struct NewNote: Encodable, Sendable {
        let title: String
        let tags: [String]
    }

    /// A router in the style of Alamofire's `URLRequestConvertible` enums.
    enum NotesAPI: EndpointConvertible {
        case list(page: Int)
        case note(id: Int)
        case create(NewNote)
        case delete(id: Int)
        case broken

        static func base(_ server: TestServer) -> Endpoint {
            Endpoint(server.url("/anything/api/v2").absoluteString)
                .with(header: "Accept", value: "application/json")
                .with(interceptors: [BearerToken(token: "t0ken")])
        }

        struct Unbuildable: Error {}

        /// Where the API lives; an app would read it from its configuration.
        @TaskLocal static var server: TestServer?

        func asEndpoint() throws -> Endpoint {
            guard let server = Self.server else { throw Unbuildable() }
            let base = Self.base(server)
            switch self {
            case .list(let page):
                return Endpoint("notes", base: base).with(parameters: ["page": page, "per_page": 50], encoding: .query)
            case .note(let id):
                return Endpoint("notes/\(id)", base: base).with(header: "X-Case", value: "note")
            case .create(let note):
                return Endpoint("notes", base: base, method: .post).with(parameters: note, encoder: .json)
            case .delete(let id):
                return Endpoint("notes/\(id)", base: base, method: .delete)
            case .broken:
                throw Unbuildable()
            }
        }
    }

    @Test func aRouterEnumMakesItsRequests() async throws {
        let server = try await Fixtures.server()
        try await NotesAPI.$server.withValue(server) {
            try await runTheRouter()
        }
    }

    private func runTheRouter() async throws {
        let session = Fixtures.session

        let list = try Fixtures.echo(try await session.request(NotesAPI.list(page: 2)).validate().data())
        #expect(list.method == "GET")
        #expect(list.rawTarget == "/anything/api/v2/notes?page=2&per_page=50" || list.rawTarget == "/anything/api/v2/notes?per_page=50&page=2")
        #expect(list.headerLines(named: "authorization") == ["Bearer t0ken"])
        #expect(list.headerLines(named: "accept") == ["application/json"])

        let note = try Fixtures.echo(try await session.request(NotesAPI.note(id: 7)).data())
        #expect(note.rawTarget == "/anything/api/v2/notes/7")
        #expect(note.headerLines(named: "x-case") == ["note"])

        let created = try Fixtures.echo(try await session.request(NotesAPI.create(NewNote(title: "a", tags: ["x", "y"]))).data())
        #expect(created.method == "POST")
        let sent = try JSONSerialization.jsonObject(with: Data(created.body.utf8)) as? [String: any Sendable]
        #expect(sent?["title"] as? String == "a")
        #expect(sent?["tags"] as? [String] == ["x", "y"])
        #expect(sent?.count == 2)
        #expect(created.headerLines(named: "content-type") == ["application/json"])

        let deleted = try Fixtures.echo(try await session.request(NotesAPI.delete(id: 7)).data())
        #expect(deleted.method == "DELETE")
    }

    @Test func aRouterThatThrowsFailsTheRequestWithItsError() async throws {
        let server = try await Fixtures.server()
        let error = await NotesAPI.$server.withValue(server) { await failure(Fixtures.session.request(NotesAPI.broken)) }
        #expect(error?.kind == .invalidRequest)
        #expect(error?.underlying is NotesAPI.Unbuildable)
    }

    @Test func endpointInterceptorsRunAfterTheSessionsAndBeforeTheRequestsOwn() async throws {
        let server = try await Fixtures.server()
        let session = Session(interceptors: [Stamp(name: "session")])
        let base = Endpoint(server.url("/anything/order").absoluteString).with(interceptors: [Stamp(name: "base")])
        let endpoint = Endpoint("x", base: base).with(interceptors: [Stamp(name: "endpoint")])
        let echo = try Fixtures.echo(try await session.request(endpoint).intercept(with: Stamp(name: "request")).data())
        #expect(echo.headerLines(named: "x-order") == ["session,base,endpoint,request"])
        await session.shutdown()
    }

    @Test func endpointCookiesAndTheJarsLeaveAsOneLine() async throws {
        let server = try await Fixtures.server()
        var configuration = SessionConfiguration()
        configuration.cookieStorage = CookieJar()
        let session = Session(configuration: configuration)
        _ = try await session.request(server.url("/cookies/set?jar=1")).data()
        let endpoint = Endpoint(server.url("/anything/c").absoluteString).with(cookie: "SESSION_ID", value: "abc")
            .with(cookie: "theme", value: "dark")
        let echo = try Fixtures.echo(try await session.request(endpoint).data())
        #expect(echo.headerLines(named: "cookie") == ["SESSION_ID=abc; theme=dark; jar=1"])
        await session.shutdown()
    }

    @Test func downloadsTakeEndpoints() async throws {
        let server = try await Fixtures.server()
        let endpoint = Endpoint(server.url("/anything/files").absoluteString).with(parameters: ["name": "report"])
            .with(header: "X-Kind", value: "download")
        let echo = try Fixtures.echo(try await Self.contentsRemovingFile(Fixtures.session.download(endpoint)))
        #expect(echo.rawTarget == "/anything/files?name=report")
        #expect(echo.headerLines(named: "x-kind") == ["download"])
    }

    /// The downloaded file's contents; the file (a new temporary one) is removed.
    static func contentsRemovingFile(_ download: DownloadRequest) async throws -> Data {
        let file = try await download.fileURL()
        defer { try? FileManager.default.removeItem(at: file) }
        return try Data(contentsOf: file)
    }

    @Test func uploadsTakeEndpointsWithPostUnlessTheyNameAMethod() async throws {
        let server = try await Fixtures.server()
        let base = Endpoint(server.url("/anything/up").absoluteString).with(parameters: ["v": 1], encoding: .query)
        let posted = try Fixtures.echo(try await Fixtures.session.upload(.data(Data("hello".utf8)), to: base).data())
        #expect(posted.method == "POST")
        #expect(posted.body == "hello")
        #expect(posted.rawTarget == "/anything/up?v=1")

        let put = try Fixtures.echo(try await Fixtures.session.upload(.data(Data("x".utf8)), to: base.with(method: .put)).data())
        #expect(put.method == "PUT")

        var form = try MultipartFormData(boundary: "b0und4ry")
        try form.append(Data("v".utf8), withName: "field")
        let multipart = try Fixtures.echo(try await Fixtures.session.upload(.multipart(form), to: base).data())
        #expect(multipart.headerLines(named: "content-type") == ["multipart/form-data; boundary=b0und4ry"])
    }

    @Test func anUploadsEndpointMayNotCarryABodyOfItsOwn() async throws {
        let server = try await Fixtures.server()
        let base = Endpoint(server.url("/anything/up").absoluteString)
        let withBodyParameters = base.with(parameters: ["a": 1], encoding: .json)
        #expect(await failure(Fixtures.session.upload(.data(Data("x".utf8)), to: withBodyParameters))?.kind == .invalidRequest)
        let withBody = base.with(body: .data(Data("own".utf8)))
        #expect(await failure(Fixtures.session.upload(.data(Data("x".utf8)), to: withBody))?.kind == .invalidRequest)
    }

    // MARK: Headers in both forms, on every way of making a request

    @Test func stringHeadersWorkWithParametersSetsUploadsAndDownloads() async throws {
        let server = try await Fixtures.server()
        let session = Fixtures.session
        let headers = ["X-Form": "strings", "Accept": "text/plain"]
        let url = server.url("/anything/forms")
        let requests: [(String, DataRequest)] = [
            ("typed", session.request(url, parameters: NewNote(title: "t", tags: []), encoder: .json, headers: RequestHeaders(headers))),
            ("untyped", session.request(url, parameters: ["q": "1"], headers: RequestHeaders(headers))),
            ("sets", session.request(Endpoint(url, headers: RequestHeaders(headers)).with(parameters: [ParameterSet(["q": "1"], encoding: .query)]))),
            ("data", session.upload(.data(Data("d".utf8)), to: url, headers: RequestHeaders(headers))),
            ("body", session.upload(RequestBody.data(Data("d".utf8)), to: url, headers: RequestHeaders(headers))),
            ("multipart", session.upload(.multipart(MultipartFormData()), to: url, headers: RequestHeaders(headers))),
        ]
        for (name, request) in requests {
            let echo = try Fixtures.echo(try await request.data())
            #expect(echo.headerLines(named: "x-form") == ["strings"], "\(name)")
            #expect(echo.headerLines(named: "accept") == ["text/plain"], "\(name)")
        }
        let downloads: [(String, DownloadRequest)] = [
            ("download typed", session.download(url, parameters: NewNote(title: "t", tags: []), encoder: .urlEncodedForm, headers: RequestHeaders(headers))),
            ("download untyped", session.download(url, parameters: ["q": "1"], headers: RequestHeaders(headers))),
            ("download sets", session.download(Endpoint(url, headers: RequestHeaders(headers)).with(parameters: [ParameterSet(["q": "1"], encoding: .query)]))),
        ]
        for (name, request) in downloads {
            let echo = try Fixtures.echo(try await Self.contentsRemovingFile(request))
            #expect(echo.headerLines(named: "x-form") == ["strings"], "\(name)")
        }
    }

    @Test func badStringHeadersFailEveryWayOfMakingARequest() async throws {
        let server = try await Fixtures.server()
        let session = Fixtures.session
        let bad = ["X-Bad": "a\r\nX-Injected: 1"]
        let url = server.url("/anything/bad")
        let requests: [DataRequest] = [
            session.request(url, parameters: NewNote(title: "t", tags: []), encoder: .json, headers: RequestHeaders(bad)),
            session.request(url, parameters: ["q": "1"], headers: RequestHeaders(bad)),
            session.request(Endpoint(url, headers: RequestHeaders(bad)).with(parameters: [ParameterSet(["q": "1"], encoding: .query)])),
            session.upload(.data(Data("d".utf8)), to: url, headers: RequestHeaders(bad)),
            session.upload(.file(URL(fileURLWithPath: "/dev/null")), to: url, headers: RequestHeaders(bad)),
            session.upload(.multipart(MultipartFormData()), to: url, headers: RequestHeaders(bad)),
        ]
        for request in requests {
            #expect(await failure(request)?.kind == .invalidHeader)
        }
        do {
            _ = try await Self.contentsRemovingFile(session.download(url, parameters: ["q": "1"], headers: RequestHeaders(bad)))
            Issue.record("a download with a bad header was sent")
        } catch {
            #expect((error as? CurlewError)?.kind == .invalidHeader)
        }
    }
}
