import Curlew
import Foundation
import Testing
import TestServer

/// `result()`, `result(decoding:)` and `serializedResult(by:)`: the throwing results' twins,
/// sharing the request's one transfer.
@Suite("Results without throwing")
struct ResultTests {
    @Test func resultsAndThrowingResultsShareOneTransfer() async throws {
        let server = try await Fixtures.server()
        let path = "/anything/result-\(UUID().uuidString)"
        let request = Fixtures.session.request(server.url(path))
        async let asResult = request.dataResult()
        async let asData = request.data()
        async let asDecoded = request.decodeResult(Echo.self)
        async let asResponse = request.serializedResult(by: .string)
        let (result, data, decoded, response) = try await (asResult, asData, asDecoded, asResponse)
        #expect(try result.get() == data)
        #expect(try decoded.get().path == path)
        #expect(try response.get().value == String(decoding: data, as: UTF8.self))
        #expect(try response.get().status.code == 200)
        // Asked afterwards, still the same transfer.
        #expect(try await request.dataResult().get() == data)
        #expect(server.requestCount(path: path) == 1, "four results and a late one made one transfer")
    }

    @Test func aFailureIsReturnedNotThrownAndMatchesWhatTheThrowingTwinThrows() async throws {
        let server = try await Fixtures.server()
        let request = Fixtures.session.request(server.url("/status/418")).validate()
        guard case .failure(let error) = await request.dataResult() else {
            Issue.record("a 418 under validate() must be a failure")
            return
        }
        #expect(error.kind == .unacceptableStatus)
        #expect(error.status?.code == 418)
        let thrown = await #expect(throws: CurlewError.self) { _ = try await request.data() }
        #expect(thrown?.kind == error.kind)
        #expect(thrown?.message == error.message)
    }

    @Test func aSerializerFailureFailsOnlyItsOwnResult() async throws {
        struct Payload: Decodable, Sendable { let value: Int }
        let server = try await Fixtures.server()
        let request = Fixtures.session.request(server.url("/xml"))
        let decoded = await request.decodeResult(Payload.self)
        let serialized = await request.serializedResult(by: .decodable(Payload.self))
        guard case .failure(let first) = decoded, case .failure(let second) = serialized else {
            Issue.record("XML does not decode as JSON")
            return
        }
        #expect(first.kind == .serializationFailed)
        #expect(second.kind == .serializationFailed)
        #expect(try await request.dataResult().get().isEmpty == false, "the body itself is still there")
    }

    @Test func aDownloadsResultIsItsFileAfterOneTransfer() async throws {
        let server = try await Fixtures.server()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-result-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = "/anything/download-result-\(UUID().uuidString)"
        let download = Fixtures.session.download(server.url(path), to: .file(directory.appendingPathComponent("echo.json")))
        let result = await download.dataResult()
        let file = try await download.fileURL()
        #expect(try result.get() == Data(contentsOf: file))
        #expect(try Fixtures.echo(result.get()).path == path)
        #expect(server.requestCount(path: path) == 1)
    }

    @Test func aDownloadWhoseFileWasRemovedFailsToReadWithAFileSystemError() async throws {
        let server = try await Fixtures.server()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-result-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let download = Fixtures.session.download(server.url("/bytes/100"), to: .file(directory.appendingPathComponent("gone")))
        let file = try await download.fileURL()
        try FileManager.default.removeItem(at: file)
        // data() and result() read the file again, without building a Response first.
        let thrown = await #expect(throws: CurlewError.self) { _ = try await download.data() }
        #expect(thrown?.kind == .fileSystem)
        #expect(thrown?.message.contains("cannot read the downloaded file") == true, "\(thrown?.message ?? "")")
        guard case .failure(let error) = await download.dataResult() else {
            Issue.record("reading a removed file must fail")
            return
        }
        #expect(error.kind == .fileSystem)
        #expect(error.status?.code == 200, "the error carries the response head")
    }
}
