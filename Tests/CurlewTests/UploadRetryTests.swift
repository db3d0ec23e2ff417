import Curlew
import Foundation
import Synchronization
import Testing
import TestServer

/// A retried upload reads its body again only when it can: data, a file, a stream or input
/// stream with a factory. A one-shot body fails the retry with a clear error and is never sent
/// empty or in part. The server fails the first attempt with 503.
@Suite("Upload retries")
struct UploadRetryTests {
    private static let payload = Data((0..<50_000).map { UInt8(0x61 + ($0 * 7) % 26) })

    /// Retries 503 for POST too, at once.
    private static let retrier = RetryPolicy(
        retryLimit: 2, backoffScale: .zero, retryableMethods: [.post, .put], honorsRetryAfter: false)

    private static func flakyPath() -> String { "/flaky/upload-\(UUID().uuidString)" }

    private static func expectResent(_ request: DataRequest, server: TestServer, path: String) async throws {
        let response = try await request.validate().response
        let echo = try Fixtures.echo(response.value)
        #expect(response.attempts == 2)
        #expect(echo.bodyLength == payload.count)
        #expect(echo.body == String(decoding: payload, as: UTF8.self))
        #expect(server.requestCount(path: path) == 2)
    }

    @Test func replayableBodiesAreSentAgain() async throws {
        let server = try await Fixtures.server()
        let directory = try SocketDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("body.bin")
        try Self.payload.write(to: file)
        try await withSession(interceptors: [Self.retrier]) { session in
            var path = Self.flakyPath()
            try await Self.expectResent(session.upload(.data(Self.payload), to: server.url(path)), server: server, path: path)
            path = Self.flakyPath()
            try await Self.expectResent(session.upload(.file(file), to: server.url(path), method: .put), server: server, path: path)

            let made = Atomic(0)
            path = Self.flakyPath()
            let streamed = RequestBody.stream(length: Int64(Self.payload.count)) {
                made.add(1, ordering: .relaxed)
                return ChunkSequence(chunks: [Array(Self.payload.prefix(20_000)), Array(Self.payload.dropFirst(20_000))])
            }
            try await Self.expectResent(session.upload(streamed, to: server.url(path)), server: server, path: path)
            #expect(made.load(ordering: .relaxed) == 2)

            let opened = Atomic(0)
            path = Self.flakyPath()
            let input = RequestBody.inputStream {
                opened.add(1, ordering: .relaxed)
                return InputStream(data: Self.payload)
            }
            try await Self.expectResent(session.upload(input, to: server.url(path)), server: server, path: path)
            #expect(opened.load(ordering: .relaxed) == 2)
        }
    }

    @Test func oneShotBodiesFailTheRetryClearly() async throws {
        let server = try await Fixtures.server()
        try await withSession(interceptors: [Self.retrier]) { session in
            let requests: [(String, (String) -> DataRequest)] = [
                ("stream", { path in session.upload(.stream(ChunkSequence(chunks: [Array(Self.payload)])), to: server.url(path)).validate() }),
                ("input stream", { path in session.upload(.inputStream(InputStream(data: Self.payload)), to: server.url(path)).validate() }),
            ]
            for (name, make) in requests {
                let path = Self.flakyPath()
                let error = await failure(make(path))
                #expect(error?.kind == .bodyNotReplayable, "\(name): \(String(describing: error))")
                #expect(error?.message.contains("one-shot") == true, "\(name): \(String(describing: error))")
                // The failed attempt's status stays on the error; nothing was sent a second time.
                #expect(error?.status?.code == 503, "\(name)")
                #expect(server.requestCount(path: path) == 1, "\(name)")
            }
        }
    }

    @Test func oneShotBodyIsReadByOneRequestOnly() async throws {
        let server = try await Fixtures.server()
        for body in [
            RequestBody.stream(ChunkSequence(chunks: [Array("once".utf8)])),
            RequestBody.inputStream(InputStream(data: Data("once".utf8))),
        ] {
            let path = "/anything/\(UUID().uuidString)"
            let echo = try Fixtures.echo(try await Fixtures.session.upload(body, to: server.url(path)).validate().data())
            #expect(echo.body == "once")
            let second = await failure(Fixtures.session.upload(body, to: server.url(path)))
            #expect(second?.kind == .bodyNotReplayable, "\(String(describing: second))")
            // Refused before anything went out: the server saw the first request only.
            #expect(server.requestCount(path: path) == 1)
        }
    }
}
