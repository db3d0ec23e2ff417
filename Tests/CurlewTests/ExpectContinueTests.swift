import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

/// `Expect: 100-continue`: who asks, and what happens when the server answers 100, refuses with
/// 417 or says nothing. Each server is a ``WireServer`` that records the bytes as they arrived.
@Suite("Expect: 100-continue")
struct ExpectContinueTests {
    private static let body = Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })

    private static func configuration(_ policy: ExpectContinue) -> SessionConfiguration {
        var configuration = SessionConfiguration()
        configuration.expectContinue = policy
        // A transfer that waits on a 100 it never acts on fails instead of hanging. Only a
        // guard: no test here expects it to fire (20 s fired under load, mid-exchange).
        configuration.timeouts.total = .seconds(300)
        return configuration
    }

    /// Runs the request `make` builds against a fresh wire server, while `script` plays the
    /// server. The server stops listening once the request has ended, so a script that waits
    /// for a connection the client never makes fails instead of hanging.
    private static func exchange(
        _ configuration: SessionConfiguration = SessionConfiguration(),
        request make: @escaping @Sendable (Session, WireServer) -> DataRequest,
        script: (WireServer) async throws -> Void
    ) async throws -> Result<Response<Data>, CurlewError> {
        let wire = try await WireServer.start()
        let session = Session(configuration: configuration)
        let request = Task { () async -> Result<Response<Data>, CurlewError> in
            defer { Task { await wire.shutdown() } }
            do throws(CurlewError) { return .success(try await make(session, wire).response) } catch { return .failure(error) }
        }
        do {
            try await script(wire)
        } catch {
            await session.shutdown()
            _ = await request.value
            throw error
        }
        let result = await request.value
        await session.shutdown()
        await wire.shutdown()
        return result
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

    private static let refusal = "HTTP/1.1 417 Expectation Failed\r\nContent-Length: 0\r\n\r\n"

    @Test func noRequestAsksByDefault() async throws {
        let large = Data(count: 2 << 20)  // Past libcurl's own threshold of 1 MiB.
        let result = try await Self.exchange(request: { session, wire in session.upload(.data(large), to: wire.url("/large")) }) { wire in
            let connection = try await wire.nextConnection()
            let (head, body) = await Self.readRequest(connection, length: large.count)
            #expect(!head.lowercased().contains("expect"), "\(head)")
            #expect(body.count == large.count)
            try await Self.ok(connection)
        }
        #expect((try? result.get().status) == .ok, "\(result)")
    }

    @Test func thresholdDecidesWhoAsksAndA100SendsTheBody() async throws {
        // A long wait: a body that went only after the wait would fail on the total timeout.
        let configuration = Self.configuration(.bodies(largerThan: 100, timeout: .seconds(60)))
        let cases: [(RequestBody, Int, Bool)] = [
            (.data(Data(count: 101)), 101, true),
            (.data(Data(count: 100)), 100, false),
            (.stream(length: 300) { ChunkSequence(chunks: [[UInt8](repeating: 1, count: 300)]) }, 300, true),
        ]
        for (body, length, asks) in cases {
            let result = try await Self.exchange(configuration, request: { session, wire in session.upload(body, to: wire.url("/threshold")) }) { wire in
                let connection = try await wire.nextConnection()
                let head = Self.head(of: await connection.readHead())
                #expect(Self.asksToContinue(head) == asks, "\(length) bytes: \(head)")
                if asks { try await connection.send("HTTP/1.1 100 Continue\r\n\r\n") }
                let (_, received) = await Self.readRequest(connection, length: length)
                #expect(received.count == length)
                try await Self.ok(connection)
            }
            #expect((try? result.get().status) == .ok, "\(length) bytes: \(result)")
        }
    }

    @Test func refusedExpectationIsSentAgainWithout() async throws {
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
            let configuration = Self.configuration(.always(timeout: .seconds(60)))
            let result = try await Self.exchange(configuration, request: { session, wire in session.upload(body, to: wire.url("/refuses")) }) { wire in
                let first = try await wire.nextConnection()
                let refused = Self.head(of: await first.readHead())
                #expect(Self.asksToContinue(refused), "\(name): \(refused)")
                try await first.send(Self.refusal)
                let second = try await wire.nextConnection()
                let (head, received) = await Self.readRequest(second, length: Self.body.count)
                #expect(!head.lowercased().contains("expect"), "\(name): \(head)")
                #expect(received == Array(Self.body), "\(name)")
                try await Self.ok(second)
            }
            #expect((try? result.get().status) == .ok, "\(name): \(result)")
            #expect((try? result.get().value) == Data("ok".utf8), "\(name)")
        }
    }

    @Test func callersOwnExpectationIsDroppedOnceThenA417IsTheResponse() async throws {
        let result = try await Self.exchange(request: { session, wire in
            session.request(wire.url("/strict"), method: .put, headers: ["Expect": "100-continue"], body: .data(Self.body))
        }) { wire in
            let first = try await wire.nextConnection()
            #expect(Self.asksToContinue(Self.head(of: await first.readHead())))
            try await first.send(Self.refusal)
            let second = try await wire.nextConnection()
            let (head, _) = await Self.readRequest(second, length: Self.body.count)
            #expect(!head.lowercased().contains("expect"), "\(head)")
            // Refused again without the expectation: that is the server's answer.
            try await second.send("HTTP/1.1 417 Expectation Failed\r\nContent-Length: 4\r\n\r\nnope")
        }
        let response = try result.get()
        #expect(response.status.code == 417)
        #expect(response.value == Data("nope".utf8))
    }

    @Test func ignoredExpectationSendsTheBodyAfterTheWaitTiming() async throws {
        // Far longer than libcurl's default of one second, so that the wait shows it was configured.
        let configuration = Self.configuration(.always(timeout: .seconds(3)))
        // Measured from before the request starts: a late wakeup of this task can only add to it.
        let started = ContinuousClock.now
        let result = try await Self.exchange(configuration, request: { session, wire in session.upload(.data(Self.body), to: wire.url("/silent")) }) { wire in
            let connection = try await wire.nextConnection()
            let head = Self.head(of: await connection.readHead())
            #expect(Self.asksToContinue(head), "\(head)")
            let (_, received) = await Self.readRequest(connection, length: Self.body.count)
            let waited = ContinuousClock.now - started
            #expect(received == Array(Self.body))
            #expect(waited >= .milliseconds(2500), "the body came after \(waited)")
            try await Self.ok(connection)
        }
        #expect((try? result.get().status) == .ok, "\(result)")
    }

    @Test func refusalAfterTheBodyWentOutResendsOnlyReplayableBodiesTiming() async throws {
        let configuration = Self.configuration(.always(timeout: .milliseconds(50)))
        let late = "HTTP/1.1 417 Expectation Failed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        // A replayable body is read again for the second request.
        let resent = try await Self.exchange(configuration, request: { session, wire in session.upload(.data(Self.body), to: wire.url("/late")) }) { wire in
            let first = try await wire.nextConnection()
            _ = await Self.readRequest(first, length: Self.body.count)
            try await first.send(late)
            await first.close()
            let second = try await wire.nextConnection()
            let (head, received) = await Self.readRequest(second, length: Self.body.count)
            #expect(!head.lowercased().contains("expect"), "\(head)")
            #expect(received == Array(Self.body))
            try await Self.ok(second)
        }
        #expect((try? resent.get().status) == .ok, "\(resent)")

        // A one-shot stream cannot be: the request fails and no second request is made.
        let oneShot = try await Self.exchange(configuration, request: { session, wire in
            session.upload(.stream(ChunkSequence(chunks: [Array(Self.body)]), length: Int64(Self.body.count)), to: wire.url("/late"))
        }) { wire in
            let first = try await wire.nextConnection()
            _ = await Self.readRequest(first, length: Self.body.count)
            try await first.send(late)
            await first.close()
            // Nil once the request has ended without opening another connection.
            #expect((try? await wire.nextConnection()) == nil, "a second request was made")
        }
        guard case .failure(let error) = oneShot else {
            Issue.record("expected bodyNotReplayable, got \(oneShot)")
            return
        }
        #expect(error.kind == .bodyNotReplayable)
        #expect(error.message.contains("417"), "\(error)")
    }

    @Test func nonPositiveWaitIsRefused() async throws {
        let server = try await Fixtures.server()
        var options = RequestOptions()
        options.expectContinue = .always(timeout: .zero)
        let error = await failure(Fixtures.session.upload(.data(Data("x".utf8)), to: server.url("/upload"), options: options))
        #expect(error?.kind == .invalidRequest, "\(String(describing: error))")
    }
}
