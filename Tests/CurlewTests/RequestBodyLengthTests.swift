import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

/// Every body with a declared length is held to it on the read path: a longer body fails before
/// its excess can reach the server as another request on a kept-alive connection (request
/// smuggling), and a shorter one fails at once instead of stalling until a timeout.
@Suite("Request bodies are held to their declared length")
struct RequestBodyLengthTests {
    /// The bytes a body carries past its declared 10: a whole request, as a smuggler writes it,
    /// to a path of its own so no other test's requests count.
    static let smuggledPath = "/anything/smuggled-\(UUID().uuidString)"
    static let smuggled = Array("GET \(smuggledPath) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
    static let declared = Array("0123456789".utf8)

    private func expectUploadFailure(_ request: DataRequest, mentioning text: String) async {
        do {
            let data = try await request.data()
            Issue.record("expected uploadFailed, got \(data.count) bytes")
        } catch {
            #expect(error.kind == .uploadFailed, "\(error)")
            #expect(error.description.contains(text), "\(error.description)")
        }
    }

    /// One session, one kept-alive connection: after the failed request, the next one must get
    /// its own response, and the server must never have parsed the excess as a request.
    private func expectNoSmuggling(body: RequestBody) async throws {
        let server = try await Fixtures.server()
        let session = Session()
        defer { Task { await session.shutdown() } }
        let before = server.requestCount(path: Self.smuggledPath)
        await expectUploadFailure(
            session.request(server.url("/post"), method: .post, body: body), mentioning: "longer than its declared 10")
        let next = try await session.request(server.url("/get?after=smuggling")).response
        #expect(next.status.code == 200)
        #expect(try Fixtures.echo(next.value).path == "/get")
        #expect(server.requestCount(path: Self.smuggledPath) == before)
    }

    @Test func oneShotStreamLongerThanDeclared() async throws {
        try await expectNoSmuggling(body: .stream(ChunkSequence(chunks: [Self.declared, Self.smuggled]), length: 10))
    }

    @Test func oneShotStreamLongerThanDeclaredInOneChunk() async throws {
        try await expectNoSmuggling(body: .stream(ChunkSequence(chunks: [Self.declared + Self.smuggled]), length: 10))
    }

    @Test func replayableStreamLongerThanDeclared() async throws {
        try await expectNoSmuggling(body: .stream(length: 10) { ChunkSequence(chunks: [Self.declared, Self.smuggled]) })
    }

    @Test func streamLongerThanDeclaredNeverSendsAWholeBody() async throws {
        // On the wire: the head and at most 9 of the 10 declared bytes, then the connection closes.
        let wire = try await WireServer.start()
        defer { Task { await wire.shutdown() } }
        let session = Session()
        defer { Task { await session.shutdown() } }
        let request = session.request(
            wire.url("/upload"), method: .post,
            body: .stream(ChunkSequence(chunks: [Self.declared, Self.smuggled]), length: 10))
        async let outcome: Void = expectUploadFailure(request, mentioning: "longer than its declared")
        let connection = try await wire.nextConnection()
        let received = await connection.read { _ in false }
        await outcome
        let head = try #require(WireConnection.headLength(of: received))
        #expect(received.count - head < 10)
        #expect(connection.isClosedByPeer)
    }

    @Test func streamShorterThanDeclaredFailsAtOnce() async throws {
        let server = try await Fixtures.server()
        var options = RequestOptions()
        options.timeouts.idle = .seconds(60)
        // Were the short body left to libcurl, the server would wait for 5 more bytes and the
        // request would end in an idle timeout a minute later.
        await expectUploadFailure(
            Fixtures.session.request(
                server.url("/post"), method: .post,
                body: .stream(ChunkSequence(chunks: [Array("01234".utf8)]), length: 10), options: options),
            mentioning: "ended after 5 of its declared 10 bytes")
    }

    @Test func streamOfExactlyTheDeclaredLengthIsSent() async throws {
        let server = try await Fixtures.server()
        let pieces = [Array("012".utf8), Array("3456".utf8), Array("789".utf8)]
        let slow = SlowChunks(chunks: pieces, pause: .milliseconds(30))
        let echo = try Fixtures.echo(
            try await Fixtures.session.request(server.url("/post"), method: .post, body: .stream(slow, length: 10)).data())
        #expect(echo.body == "0123456789")
        #expect(echo.headers["content-length"] == "10")
        #expect(echo.headers["transfer-encoding"] == nil)
    }

    @Test func growingFileFailsBeforeItsLastBytes() async throws {
        try await withBodyFile(megabytes: 32) { file, wire, session in
            let request = session.request(wire.url("/upload"), method: .post, body: .file(file))
            async let outcome: Void = expectUploadFailure(request, mentioning: "longer than its declared \(32 << 20)")
            let connection = try await wire.nextConnection()
            // The client is now blocked on full socket buffers, far from the file's end.
            await connection.readHead()
            let handle = try FileHandle(forWritingTo: file)
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(repeating: 0x41, count: 1 << 20))
            try handle.close()
            let received = await connection.read { _ in false }
            await outcome
            let head = try #require(WireConnection.headLength(of: received))
            #expect(received.count - head < 32 << 20)
        }
    }

    @Test func shrinkingFileFailsAtOnce() async throws {
        try await withBodyFile(megabytes: 32) { file, wire, session in
            var options = RequestOptions()
            options.timeouts.idle = .seconds(60)
            let request = session.request(wire.url("/upload"), method: .post, body: .file(file), options: options)
            async let outcome: Void = expectUploadFailure(request, mentioning: "of its declared \(32 << 20) bytes")
            let connection = try await wire.nextConnection()
            await connection.readHead()
            let handle = try FileHandle(forWritingTo: file)
            try handle.truncate(atOffset: 1 << 20)
            try handle.close()
            await connection.read { _ in false }
            await outcome
        }
    }

    private func withBodyFile(
        megabytes: Int, _ body: (URL, WireServer, Session) async throws -> Void
    ) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-body-\(UUID().uuidString)")
        try Data(repeating: 0x61, count: megabytes << 20).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let wire = try await WireServer.start()
        let session = Session()
        do {
            try await body(file, wire, session)
        } catch {
            Issue.record(error)
        }
        await session.shutdown()
        await wire.shutdown()
    }

    // MARK: Headers that would frame the body differently

    @Test func contentLengthHeaderThatDisagreesIsRefusedBeforeSending() async throws {
        let server = try await Fixtures.server()
        let path = "/anything/refused-\(UUID().uuidString)"
        do {
            _ = try await Fixtures.session.request(
                server.url(path), method: .post, headers: ["Content-Length": "4"], body: .string("0123456789")
            ).data()
            Issue.record("expected invalidRequest")
        } catch {
            #expect(error.kind == .invalidRequest)
            #expect(error.description.contains("says 4 bytes but the body has 10"))
        }
        do {
            _ = try await Fixtures.session.request(server.url(path), method: .post, headers: ["Content-Length": "5"]).data()
            Issue.record("expected invalidRequest")
        } catch {
            #expect(error.kind == .invalidRequest)
        }
        do {
            _ = try await Fixtures.session.request(
                server.url(path), method: .post, headers: ["Transfer-Encoding": "chunked"], body: .string("abc")
            ).data()
            Issue.record("expected invalidRequest")
        } catch {
            #expect(error.kind == .invalidRequest)
        }
        #expect(server.requestCount(path: path) == 0)
    }

    @Test func contentLengthHeaderDeclaresTheLengthOfAStream() async throws {
        let server = try await Fixtures.server()
        let echo = try Fixtures.echo(
            try await Fixtures.session.request(
                server.url("/post"), method: .post, headers: ["Content-Length": "10"],
                body: .stream(ChunkSequence(chunks: [Self.declared]))
            ).data())
        #expect(echo.body == "0123456789")
        #expect(echo.headers["transfer-encoding"] == nil)
        await expectUploadFailure(
            Fixtures.session.request(
                server.url("/post"), method: .post, headers: ["Content-Length": "10"],
                body: .stream(ChunkSequence(chunks: [Self.declared, Self.smuggled]))),
            mentioning: "longer than its declared 10")
    }
}

/// Chunks yielded with a pause before each, so the upload pump sees them one at a time.
struct SlowChunks: AsyncSequence, Sendable {
    typealias Element = [UInt8]
    let chunks: [[UInt8]]
    let pause: Duration

    struct AsyncIterator: AsyncIteratorProtocol {
        var remaining: [[UInt8]]
        let pause: Duration
        mutating func next() async throws -> [UInt8]? {
            guard !remaining.isEmpty else { return nil }
            try await Task.sleep(for: pause)
            return remaining.removeFirst()
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(remaining: chunks, pause: pause) }
}
