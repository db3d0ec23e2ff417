import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

/// `Expect: 100-continue`: who asks, and what happens when the server answers 100, refuses with
/// 417 or says nothing. Each server is a ``WireServer`` that records the bytes as they arrived.
@Suite("Expect: 100-continue", .timeLimit(.minutes(1)))
struct ExpectContinueTests {
    private static let body = Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })

    private static func session(_ policy: ExpectContinue) -> Session {
        var configuration = SessionConfiguration()
        configuration.expectContinue = policy
        // A transfer that waits on a 100 it never acts on fails instead of hanging.
        configuration.timeouts.total = .seconds(20)
        return Session(configuration: configuration)
    }

    private static func head(of bytes: [UInt8]) -> String {
        String(decoding: bytes.prefix(WireConnection.headLength(of: bytes) ?? bytes.count), as: UTF8.self)
    }

    private static func asksToContinue(_ head: String) -> Bool {
        head.lowercased().contains("\r\nexpect: 100-continue\r\n")
    }

    /// Reads the head and a body of `length` bytes; returns the head and the body.
    private static func readRequest(_ connection: WireConnection, length: Int) async -> (head: String, body: [UInt8]) {
        let bytes = await connection.read { bytes in
            WireConnection.headLength(of: bytes).map { bytes.count >= $0 + length } ?? false
        }
        let headLength = WireConnection.headLength(of: bytes) ?? bytes.count
        return (Self.head(of: bytes), Array(bytes[headLength...]))
    }

    private static func ok(_ connection: WireConnection) async throws {
        try await connection.send("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
    }

    private static func run(_ request: DataRequest) async -> Result<Response<Data>, CurlewError> {
        do throws(CurlewError) { return .success(try await request.response) } catch { return .failure(error) }
    }

    @Test func noRequestAsksByDefault() async throws {
        let wire = try await WireServer.start()
        let session = Session()
        let large = Data(count: 2 << 20)  // Past libcurl's own threshold of 1 MiB.
        async let result = Self.run(session.upload(large, to: wire.url("/large")))
        let connection = try await wire.nextConnection()
        let (head, body) = await Self.readRequest(connection, length: large.count)
        #expect(!head.lowercased().contains("expect"), "\(head)")
        #expect(body.count == large.count)
        try await Self.ok(connection)
        let outcome = await result
        #expect((try? outcome.get().status) == .ok, "\(outcome)")
        await connection.close()
        await session.shutdown()
        await wire.shutdown()
    }

    @Test func thresholdDecidesWhoAsksAndA100SendsTheBody() async throws {
        let wire = try await WireServer.start()
        // A long wait: a body that goes only after the wait fails on the total timeout instead.
        let session = Self.session(.bodies(largerThan: 100, timeout: .seconds(60)))
        let cases: [(RequestBody, Int, Bool)] = [
            (.data(Data(count: 101)), 101, true),
            (.data(Data(count: 100)), 100, false),
            (.stream(length: 300) { ChunkSequence(chunks: [[UInt8](repeating: 1, count: 300)]) }, 300, true),
        ]
        for (body, length, asks) in cases {
            async let result = Self.run(session.upload(body, to: wire.url("/threshold")))
            let connection = try await wire.nextConnection()
            let head = Self.head(of: await connection.readHead())
            #expect(Self.asksToContinue(head) == asks, "\(length) bytes: \(head)")
            if asks { try await connection.send("HTTP/1.1 100 Continue\r\n\r\n") }
            let (_, received) = await Self.readRequest(connection, length: length)
            #expect(received.count == length)
            try await Self.ok(connection)
            let outcome = await result
            #expect((try? outcome.get().status) == .ok, "\(length) bytes: \(outcome)")
            await connection.close()
        }
        await session.shutdown()
        await wire.shutdown()
    }

    @Test func refusedExpectationIsSentAgainWithout() async throws {
        let wire = try await WireServer.start()
        let session = Self.session(.always(timeout: .seconds(60)))
        let directory = try SocketDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("body.bin")
        try Self.body.write(to: file)
        let bodies: [(String, RequestBody)] = [
            ("data", .data(Self.body)),
            ("file", .file(file)),
            // None of a one-shot body goes out before the 417: it is sent on the second try.
            ("one-shot stream", .stream(ChunkSequence(chunks: [Array(Self.body)]), length: Int64(Self.body.count))),
            ("one-shot input stream", .inputStream(InputStream(data: Self.body), length: Int64(Self.body.count))),
        ]
        for (name, body) in bodies {
            async let result = Self.run(session.upload(body, to: wire.url("/refuses")))
            let first = try await wire.nextConnection()
            let refused = Self.head(of: await first.readHead())
            #expect(Self.asksToContinue(refused), "\(name): \(refused)")
            try await first.send("HTTP/1.1 417 Expectation Failed\r\nContent-Length: 0\r\n\r\n")
            let second = try await wire.nextConnection()
            let (head, received) = await Self.readRequest(second, length: Self.body.count)
            #expect(!head.lowercased().contains("expect"), "\(name): \(head)")
            #expect(received == Array(Self.body), "\(name)")
            try await Self.ok(second)
            let response = await result
            #expect((try? response.get().status) == .ok, "\(name): \(response)")
            #expect((try? response.get().value) == Data("ok".utf8), "\(name)")
            await first.close()
            await second.close()
        }
        await session.shutdown()
        await wire.shutdown()
    }

    @Test func callersOwnExpectationIsDroppedOnceThenA417IsTheResponse() async throws {
        let wire = try await WireServer.start()
        let session = Session()
        async let result = Self.run(
            session.request(wire.url("/strict"), method: .put, headers: ["Expect": "100-continue"], body: .data(Self.body)))
        let first = try await wire.nextConnection()
        #expect(Self.asksToContinue(Self.head(of: await first.readHead())))
        try await first.send("HTTP/1.1 417 Expectation Failed\r\nContent-Length: 0\r\n\r\n")
        let second = try await wire.nextConnection()
        let (head, _) = await Self.readRequest(second, length: Self.body.count)
        #expect(!head.lowercased().contains("expect"), "\(head)")
        // Refused again without the expectation: that is the server's answer.
        try await second.send("HTTP/1.1 417 Expectation Failed\r\nContent-Length: 4\r\n\r\nnope")
        let outcome = await result
        let response = try outcome.get()
        #expect(response.status.code == 417)
        #expect(response.value == Data("nope".utf8))
        await first.close()
        await second.close()
        await session.shutdown()
        await wire.shutdown()
    }

    @Test func ignoredExpectationSendsTheBodyAfterTheWaitTiming() async throws {
        let wire = try await WireServer.start()
        // Longer than libcurl's default of one second, so that the wait shows it was configured.
        let session = Self.session(.always(timeout: .milliseconds(2500)))
        async let result = Self.run(session.upload(Self.body, to: wire.url("/silent")))
        let connection = try await wire.nextConnection()
        let head = Self.head(of: await connection.readHead())
        let asked = ContinuousClock.now
        #expect(Self.asksToContinue(head), "\(head)")
        let (_, received) = await Self.readRequest(connection, length: Self.body.count)
        let waited = ContinuousClock.now - asked
        #expect(received == Array(Self.body))
        #expect(waited >= .seconds(2), "the body came after \(waited)")
        try await Self.ok(connection)
        let outcome = await result
        #expect((try? outcome.get().status) == .ok, "\(outcome)")
        await connection.close()
        await session.shutdown()
        await wire.shutdown()
    }

    @Test func refusalAfterTheBodyWentOutResendsOnlyReplayableBodiesTiming() async throws {
        let wire = try await WireServer.start()
        let session = Self.session(.always(timeout: .milliseconds(50)))
        // A replayable body is read again for the second request.
        async let resent = Self.run(session.upload(Self.body, to: wire.url("/late")))
        let first = try await wire.nextConnection()
        _ = await Self.readRequest(first, length: Self.body.count)
        try await first.send("HTTP/1.1 417 Expectation Failed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        await first.close()
        let second = try await wire.nextConnection()
        let (head, received) = await Self.readRequest(second, length: Self.body.count)
        #expect(!head.lowercased().contains("expect"), "\(head)")
        #expect(received == Array(Self.body))
        try await Self.ok(second)
        let resentOutcome = await resent
        #expect((try? resentOutcome.get().status) == .ok, "\(resentOutcome)")
        await second.close()

        // A one-shot stream cannot be: the request fails and no second request is made.
        async let oneShot = Self.run(
            session.upload(ChunkSequence(chunks: [Array(Self.body)]), length: Int64(Self.body.count), to: wire.url("/late")))
        let third = try await wire.nextConnection()
        _ = await Self.readRequest(third, length: Self.body.count)
        try await third.send("HTTP/1.1 417 Expectation Failed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        await third.close()
        let outcome = await oneShot
        guard case .failure(let error) = outcome else {
            Issue.record("expected bodyNotReplayable, got \(outcome)")
            return
        }
        #expect(error.kind == .bodyNotReplayable)
        #expect(error.message.contains("417"), "\(error)")
        await session.shutdown()
        await wire.shutdown()
        #expect((try? await wire.nextConnection()) == nil, "a second request was made")
    }

    @Test func nonPositiveWaitIsRefused() async throws {
        let server = try await Fixtures.server()
        var options = RequestOptions()
        options.expectContinue = .always(timeout: .zero)
        let error = await failure(Fixtures.session.upload(Data("x".utf8), to: server.url("/upload"), options: options))
        #expect(error?.kind == .invalidRequest, "\(String(describing: error))")
    }
}
