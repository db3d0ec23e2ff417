import Curlew
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import Testing
import TestServer

/// ``DownloadRequest`` has ``DataRequest``'s API: the same ways to make one, the same
/// validation, interception and serializers (reading the file), and a temporary file when no
/// destination is given.
@Suite("Download parity with data requests")
struct DownloadParityTests {
    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-parity-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private func contents(of directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    /// The same chain of shared API, written once for any kind of request.
    private func strict<R: Request>(_ request: R, types: [String]) -> R {
        request.validate(statusCode: 200..<300).validate(contentType: types)
    }

    @Test func aDownloadWithoutDestinationGoesToATemporaryFileTheCallerOwns() async throws {
        let server = try await Fixtures.server()
        let response = try await Fixtures.session.download(server.url("/bytes/3000?seed=7")).validate().response
        defer { try? FileManager.default.removeItem(at: response.value) }
        #expect(response.value.deletingLastPathComponent().standardizedFileURL.path
            == FileManager.default.temporaryDirectory.standardizedFileURL.path)
        #expect(response.value.lastPathComponent.hasPrefix("curlew-"))
        #expect(response.value.lastPathComponent.hasSuffix("-3000"), "the suggested name is kept: \(response.value)")
        #expect(try Data(contentsOf: response.value) == Data(TestServer.expectedBytes(count: 3000, seed: 7)))
        // Each download gets its own file.
        let second = try await Fixtures.session.download(server.url("/bytes/3000?seed=7")).fileURL()
        defer { try? FileManager.default.removeItem(at: second) }
        #expect(second != response.value)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path)
            // This test's partial files only (`.<name>.curlew-XXXXXX`): tests running beside it
            // may have downloads of their own in flight in the same folder.
            .filter { $0.hasPrefix(".\(response.value.lastPathComponent).") || $0.hasPrefix(".\(second.lastPathComponent).") }
        #expect(leftovers.isEmpty, "no temporary file of the download stays: \(leftovers)")
    }

    @Test func serializersReadTheFinishedFile() async throws {
        let server = try await Fixtures.server()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }

        let bytes = Fixtures.session.download(server.url("/bytes/70000?seed=3"), to: .directory(directory))
        #expect(try await bytes.data() == Data(TestServer.expectedBytes(count: 70000, seed: 3)))
        #expect(try await bytes.fileURL() == directory.appendingPathComponent("70000"), "data() and fileURL() share one transfer")
        #expect(server.requestCount(path: "/bytes/70000") >= 1)

        let echo = try await Fixtures.session.download(server.url("/anything/serialized?x=1"), to: .directory(directory))
            .validate().decode(Echo.self)
        #expect(echo.path == "/anything/serialized")
        #expect(echo.args["x"] == .one("1"))

        let text = try await Fixtures.session.download(server.url("/anything/text"), to: .directory(directory)).string()
        #expect(text.contains("\"/anything/text\""))

        let mapped = try await Fixtures.session.download(server.url("/bytes/10"), to: .directory(directory))
            .serialized(by: DataResponseSerializer())
        #expect(mapped.value.count == 10)
        #expect(mapped.head.status == .ok)
        let files = try contents(of: directory)
        #expect(files == ["10", "70000", "serialized", "text"], "the files stay: they are the caller's")
    }

    @Test func emptyResponseRulesAreTheSameAsForDataRequests() async throws {
        let server = try await Fixtures.server()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }

        let noContent = try await Fixtures.session.download(server.url("/status/204"), to: .file(directory.appendingPathComponent("a")))
            .decode(Empty.self)
        #expect(noContent == Empty.value)

        let download = await #expect(throws: CurlewError.self) {
            _ = try await Fixtures.session.download(server.url("/bytes/0"), to: .file(directory.appendingPathComponent("b")))
                .decode(Empty.self)
        }
        let data = await #expect(throws: CurlewError.self) {
            _ = try await Fixtures.session.request(server.url("/bytes/0")).decode(Empty.self)
        }
        #expect(download?.kind == .emptyResponse)
        #expect(download?.kind == data?.kind)
    }

    @Test func downloadsAcceptEverythingRequestsAccept() async throws {
        let server = try await Fixtures.server()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func echo(_ download: DownloadRequest) async throws -> Echo {
            try await download.validate().decode(Echo.self)
        }
        var destinationIndex = 0
        func next() -> DownloadDestination {
            destinationIndex += 1
            return .file(directory.appendingPathComponent("echo-\(destinationIndex)"))
        }

        var urlRequest = URLRequest(url: server.url("/anything/urlrequest"))
        urlRequest.httpMethod = "PUT"
        urlRequest.setValue("from-foundation", forHTTPHeaderField: "X-Origin")
        urlRequest.httpBody = Data("put body".utf8)
        let fromURLRequest = try await echo(Fixtures.session.download(urlRequest, to: next()))
        #expect(fromURLRequest.method == "PUT")
        #expect(fromURLRequest.headers["x-origin"] == "from-foundation")
        #expect(fromURLRequest.body == "put body")

        let outgoing = OutgoingRequest(url: server.url("/anything/outgoing"), method: .delete, headerFields: [.init("X-Built")!: "yes"])
        let fromOutgoing = try await echo(Fixtures.session.download(outgoing, to: next()))
        #expect(fromOutgoing.method == "DELETE")
        #expect(fromOutgoing.headers["x-built"] == "yes")

        let withStrings = try await echo(Fixtures.session.download(server.url("/anything/strings"), headers: ["X-Plain": "text"], to: next()))
        #expect(withStrings.headers["x-plain"] == "text")
        let badHeader = await #expect(throws: CurlewError.self) {
            _ = try await Fixtures.session.download(server.url("/anything/bad"), headers: ["X-Bad": "a\r\nInjected: yes"], to: next())
                .fileURL()
        }
        #expect(badHeader?.kind == .invalidHeader)
        #expect(server.requestCount(path: "/anything/bad") == 0)

        struct Query: Codable, Sendable, Equatable { let q: String; let page: Int }
        let encodedQuery = try await echo(
            Fixtures.session.download(server.url("/anything/query"), parameters: Query(q: "curl", page: 2), to: next()))
        #expect(encodedQuery.args["q"] == .one("curl"))
        #expect(encodedQuery.args["page"] == .one("2"))

        let encodedJSON = try await echo(
            Fixtures.session.download(
                server.url("/anything/json"), method: .post, parameters: Query(q: "json", page: 3), encoder: JSONParameterEncoder(),
                to: next()))
        #expect(encodedJSON.method == "POST")
        #expect(encodedJSON.headers["content-type"]?.hasPrefix("application/json") == true)
        #expect(try JSONDecoder().decode(Query.self, from: Data(encodedJSON.body.utf8)) == Query(q: "json", page: 3))

        let untyped = try await echo(
            Fixtures.session.download(server.url("/anything/untyped"), parameters: ["a": "b"] as Parameters, to: next()))
        #expect(untyped.args["a"] == .one("b"))
        let files = try contents(of: directory)
        #expect(files.count == 6, "one file per successful download: \(files)")
    }

    @Test func fileURLsStayRefused() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = directory.appendingPathComponent("secret.txt")
        try Data("secret".utf8).write(to: secret)
        let destination = directory.appendingPathComponent("copy")

        let direct = await #expect(throws: CurlewError.self) {
            _ = try await Fixtures.session.download(secret, to: .file(destination)).fileURL()
        }
        #expect(direct?.kind == .unsupportedScheme)
        let converted = await #expect(throws: CurlewError.self) {
            _ = try await Fixtures.session.download(URLRequest(url: secret), to: .file(destination)).fileURL()
        }
        #expect(converted?.kind == .unsupportedScheme)
        let built = await #expect(throws: CurlewError.self) {
            _ = try await Fixtures.session.download(OutgoingRequest(url: secret), to: .file(destination)).fileURL()
        }
        #expect(built?.kind == .unsupportedScheme)
        #expect(try contents(of: directory) == ["secret.txt"])
    }

    @Test func contentTypeValidationInterceptionAndTheSharedAPI() async throws {
        let server = try await Fixtures.server()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }

        let wrongType = await #expect(throws: CurlewError.self) {
            _ = try await strict(Fixtures.session.download(server.url("/bytes/10"), to: .directory(directory)), types: ["application/json"])
                .fileURL()
        }
        #expect(wrongType?.kind == .unacceptableContentType)
        let sameForData = await #expect(throws: CurlewError.self) {
            _ = try await strict(Fixtures.session.request(server.url("/bytes/10")), types: ["application/json"]).data()
        }
        #expect(sameForData?.kind == wrongType?.kind)
        let accepted = try await strict(
            Fixtures.session.download(server.url("/bytes/10"), to: .directory(directory)), types: ["application/*"]
        ).fileURL()
        #expect(accepted.lastPathComponent == "10")

        let tagging = Interceptor.adapter { request, _ in
            var request = request
            request.headerFields[HTTPField.Name("X-Tagged")!] = "download"
            return request
        }
        let tagged = try await Fixtures.session.download(server.url("/anything/tagged"), to: .directory(directory))
            .intercept(with: tagging).decode(Echo.self)
        #expect(tagged.headers["x-tagged"] == "download")

        struct Refused: Error {}
        let refusing = Interceptor(responseHandlers: [{ response, _ in
            if response.head.headerFields[.contentType] == "application/octet-stream" { throw Refused() }
            return response
        }])
        let refused = await #expect(throws: CurlewError.self) {
            _ = try await Fixtures.session.download(server.url("/bytes/20"), to: .file(directory.appendingPathComponent("refused")))
                .intercept(with: refusing).fileURL()
        }
        #expect(refused?.underlying is Refused || refused?.kind == .validationFailed, "\(String(describing: refused))")
        let files = try contents(of: directory)
        #expect(files == ["10", "tagged"], "a download a response interceptor refuses leaves nothing")
    }
}
