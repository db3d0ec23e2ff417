import Curlew
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import Testing
import TestServer

/// The upload shortcuts, `InputStream` bodies and upload progress, against the test server.
@Suite("Uploads")
struct UploadTests {
    private struct Report: Decodable {
        let method: String
        let bytes: Int
        let crc32: UInt32
        let chunked: Bool
    }

    private static func payload(_ count: Int) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) })
    }

    @Test func uploadDataPostsByDefaultAndTakesAMethod() async throws {
        let server = try await Fixtures.server()
        let body = Data("name=curlew".utf8)
        let posted = try Fixtures.echo(try await Fixtures.session.upload(.data(body), to: server.url("/anything/up")).validate().data())
        #expect(posted.method == "POST")
        #expect(posted.body == "name=curlew")
        #expect(posted.headers["content-type"] == nil)

        var fields = HTTPFields()
        fields[.contentType] = "text/plain"
        let put = try Fixtures.echo(
            try await Fixtures.session.upload(.data(body), to: server.url("/anything/up"), method: .put, headers: RequestHeaders(fields))
                .validate().data())
        #expect(put.method == "PUT")
        #expect(put.body == "name=curlew")
        #expect(put.headers["content-type"] == "text/plain")
    }

    @Test func uploadFileStreamsItFromDisk() async throws {
        let server = try await Fixtures.server()
        let directory = try SocketDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("body.bin")
        let payload = Self.payload(3 << 20)
        try payload.write(to: file)
        let report = try await Fixtures.session.upload(.file(file), to: server.url("/upload"), method: .patch)
            .validate().decode(Report.self)
        #expect(report.method == "PATCH")
        #expect(report.bytes == payload.count)
        #expect(report.crc32 == TestServer.crc32(of: payload))
        #expect(!report.chunked)

        let missing = await failure(Fixtures.session.upload(.file(directory.url.appendingPathComponent("absent")), to: server.url("/upload")))
        #expect(missing?.kind == .invalidRequest, "\(String(describing: missing))")
    }

    /// A file upload is labelled from its extension, as multipart file parts are, unless the
    /// caller named a type; what the server received, and what the curl command repeats.
    @Test func uploadFileInfersItsContentTypeFromTheExtension() async throws {
        let server = try await Fixtures.server()
        let directory = try SocketDirectory()
        defer { directory.remove() }
        let png = directory.url.appendingPathComponent("photo.PNG")
        let unknown = directory.url.appendingPathComponent("notes.unknownext")
        try Data("png".utf8).write(to: png)
        try Data("data".utf8).write(to: unknown)

        let labelled = Fixtures.session.upload(.file(png), to: server.url("/anything/file"), method: .put)
        let echo = try Fixtures.echo(try await labelled.validate().data())
        #expect(echo.headers["content-type"] == "image/png")
        #expect(echo.body == "png")
        #expect(labelled.cURLDescription().contains("-H 'Content-Type: image/png'"), "\(labelled.cURLDescription())")

        let fallback = try Fixtures.echo(try await Fixtures.session.upload(.file(unknown), to: server.url("/anything/file")).data())
        #expect(fallback.headers["content-type"] == "application/octet-stream")

        var fields = HTTPFields()
        fields[.contentType] = "text/plain"
        let named = try Fixtures.echo(
            try await Fixtures.session.upload(.file(png), to: server.url("/anything/file"), headers: RequestHeaders(fields)).data())
        #expect(named.headers["content-type"] == "text/plain")
    }

    @Test func uploadStreamWithAndWithoutLength() async throws {
        let server = try await Fixtures.server()
        let chunks = (0..<40).map { index in [UInt8](repeating: UInt8(index), count: 10_000) }
        let expected = Data(chunks.joined())
        let sized = try await Fixtures.session.upload(
            .stream(ChunkSequence(chunks: chunks), length: Int64(expected.count)), to: server.url("/upload")
        ).validate().decode(Report.self)
        #expect(sized.bytes == expected.count && sized.crc32 == TestServer.crc32(of: expected) && !sized.chunked)
        let chunked = try await Fixtures.session.upload(.stream(ChunkSequence(chunks: chunks)), to: server.url("/upload"), method: .put)
            .validate().decode(Report.self)
        #expect(chunked.method == "PUT")
        #expect(chunked.bytes == expected.count && chunked.crc32 == TestServer.crc32(of: expected) && chunked.chunked)
    }

    @Test func uploadInputStreams() async throws {
        let server = try await Fixtures.server()
        let payload = Self.payload(1 << 20)
        let fromData = try await Fixtures.session.upload(.inputStream(InputStream(data: payload)), to: server.url("/upload"))
            .validate().decode(Report.self)
        #expect(fromData.bytes == payload.count && fromData.crc32 == TestServer.crc32(of: payload))
        #expect(fromData.chunked)

        let directory = try SocketDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("stream.bin")
        try payload.write(to: file)
        let stream = try #require(InputStream(url: file))
        let fromFile = try await Fixtures.session.upload(.inputStream(stream, length: Int64(payload.count)), to: server.url("/upload"))
            .validate().decode(Report.self)
        #expect(fromFile.bytes == payload.count && fromFile.crc32 == TestServer.crc32(of: payload))
        #expect(!fromFile.chunked)

        // A stream opened by its owner beforehand is read from where it is.
        let opened = InputStream(data: Data("already open".utf8))
        opened.open()
        let echo = try Fixtures.echo(
            try await Fixtures.session.upload(.inputStream(opened), to: server.url("/anything/opened")).validate().data())
        #expect(echo.body == "already open")
    }

    @Test func inputStreamShorterThanItsLengthFails() async throws {
        let server = try await Fixtures.server()
        let error = await failure(
            Fixtures.session.upload(.inputStream(InputStream(data: Data(count: 10)), length: 20), to: server.url("/upload")))
        #expect(error?.kind == .uploadFailed, "\(String(describing: error))")
        #expect(error?.message.contains("ended after 10 of its declared 20 bytes") == true, "\(String(describing: error))")
    }

    @Test func urlRequestBodyStreamIsSent() async throws {
        let server = try await Fixtures.server()
        var urlRequest = URLRequest(url: server.url("/anything/foundation"))
        urlRequest.httpMethod = "PUT"
        urlRequest.httpBodyStream = InputStream(data: Data("from URLSession code".utf8))
        let echo = try Fixtures.echo(try await Fixtures.session.request(urlRequest).validate().data())
        #expect(echo.method == "PUT")
        #expect(echo.body == "from URLSession code")
    }

    @Test func uploadProgressRisesToTheTotal() async throws {
        let server = try await Fixtures.server()
        var configuration = SessionConfiguration()
        configuration.progressInterval = .zero
        let payload = Self.payload(8 << 20)
        try await withSession(configuration: configuration) { session in
            for request in [
                session.upload(.data(payload), to: server.url("/upload")),
                session.upload(.stream(length: Int64(payload.count)) { ChunkSequence(chunks: [Array(payload)]) }, to: server.url("/upload")),
            ] {
                var uploads: [TransferProgress] = []
                var completed = false
                for try await event in request.events {
                    switch event {
                    case .uploadProgress(let progress): uploads.append(progress)
                    case .completed: completed = true
                    default: break
                    }
                }
                #expect(completed)
                #expect(uploads.count >= 3, "\(uploads.map(\.completedBytes))")
                let sent = uploads.map(\.completedBytes)
                #expect(zip(sent, sent.dropFirst()).allSatisfy { $0 < $1 }, "\(sent)")
                #expect(sent.last == Int64(payload.count))
                #expect(uploads.allSatisfy { $0.totalBytes == Int64(payload.count) }, "\(uploads.map(\.totalBytes))")
                #expect(uploads.last?.fractionCompleted == 1)
            }
        }
    }
}
