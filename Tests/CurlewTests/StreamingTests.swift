import Curlew
import Foundation
import Testing
import TestServer

@Suite("Streaming bodies with backpressure")
struct StreamingTests {
    @Test func bytesArriveInOrderAndComplete() async throws {
        let server = try await Fixtures.server()
        let session = Session()
        var received = [UInt8]()
        for try await chunk in session.request(server.url("/stream-bytes/300000?chunk=7000")).validate().bytes {
            received.append(contentsOf: chunk)
        }
        #expect(received == TestServer.expectedBytes(count: 300_000))
        await session.shutdown()
    }

    @Test func validationRunsOnTheHeadBeforeAnyChunk() async throws {
        let server = try await Fixtures.server()
        do {
            for try await _ in Fixtures.session.request(server.url("/status/503")).validate().bytes {
                Issue.record("no chunk expected")
            }
            Issue.record("expected an error")
        } catch let error as CurlewError {
            #expect(error.kind == .unacceptableStatus)
        }
    }

    /// 512 MiB through a deliberately slow consumer: memory stays bounded because the
    /// transfer is paused whenever the consumer is more than the stream buffer behind.
    @Test(.timeLimit(.minutes(3)))
    func slowConsumerKeepsMemoryBounded() async throws {
        let server = try await Fixtures.server()
        var configuration = SessionConfiguration()
        configuration.streamBufferSize = 1 << 20
        let session = Session(configuration: configuration)
        let total = 512 << 20
        let baseline = try Fixtures.residentBytes()
        var peak = baseline
        var received = 0
        var chunks = 0
        var firstMismatch: Int?
        for try await chunk in session.request(server.url("/bytes/\(total)")).validate().bytes {
            if firstMismatch == nil, let first = chunk.first, first != TestServer.expectedByte(at: UInt64(received)) {
                firstMismatch = received
            }
            received += chunk.count
            chunks += 1
            if chunks % 8 == 0 {
                // The slow part: the consumer sleeps regularly, so curl must pause.
                try await Task.sleep(for: .milliseconds(1))
                peak = try max(peak, Fixtures.residentBytes())
            }
        }
        #expect(received == total)
        #expect(firstMismatch == nil)
        #expect(peak - baseline < 64 << 20, "resident memory grew by \((peak - baseline) >> 20) MiB")
        await session.shutdown()
    }

    @Test func droppingTheIteratorCancelsTheTransfer() async throws {
        // A server of its own, so that other tests' connections do not count.
        let server = try await TestServer.start()
        let session = Session()
        var seen = 0
        for try await chunk in session.request(server.url("/bytes/\(256 << 20)")).bytes {
            seen += chunk.count
            if seen > 1 << 20 { break }
        }
        // The transfer is stopped: its connection closes instead of draining 256 MiB.
        try await waitUntil { server.openConnectionCount == 0 }
        #expect(server.connectionCount == 1)
        await session.shutdown()
        try await server.shutdown()
    }

    @Test func streamingAndCollectingTheSameRequestConflict() async throws {
        let server = try await Fixtures.server()
        let request = Fixtures.session.request(server.url("/bytes/10"))
        for try await _ in request.bytes {}
        do {
            _ = try await request.data()
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .streamAlreadyConsumed)
        }
    }
}

/// Polls `condition` until it holds: a wait that ends on an event (a server's count, a
/// recorder's). The timeout only turns a hang into a failure, so it is far above any expected
/// wait: 5 s, then 30 s were too short on a loaded machine (a burst of 100 requests took more
/// than 30 s to reach the server with two builds beside the suite).
func waitUntil(
    _ condition: @Sendable () -> Bool, timeout: Duration = .seconds(300), sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        if ContinuousClock.now > deadline {
            Issue.record("hung: the condition did not hold within \(timeout)", sourceLocation: sourceLocation)
            return
        }
        try await Task.sleep(for: .milliseconds(20))
    }
}
