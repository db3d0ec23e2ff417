import Curlew
import Foundation
import HTTPTypes
import Synchronization
import Testing
import TestServer

/// `suspend()` and `resume()`: libcurl pauses the transfer on the session's thread, so no bytes
/// move either way; the idle timeout sleeps meanwhile; backpressure cannot undo a suspension.
///
/// Tests whose names contain "Timing" hold a suspension for a while and run in the serial phase.
@Suite("Suspend and resume")
struct SuspendResumeTests {
    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-suspend-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private func session(idle: Duration? = nil, total: Duration? = nil, streamBufferSize: Int? = nil) -> Session {
        var configuration = SessionConfiguration()
        configuration.progressInterval = .milliseconds(20)
        configuration.timeouts.idle = idle
        configuration.timeouts.total = total
        if let streamBufferSize { configuration.streamBufferSize = streamBufferSize }
        return Session(configuration: configuration)
    }

    /// A counter shared with the server side of a test.
    private final class Count: Sendable {
        private let value = Atomic<Int>(0)
        func add(_ amount: Int) { value.add(amount, ordering: .relaxed) }
        var current: Int { value.load(ordering: .relaxed) }
    }

    /// Polls `value` until it has not moved for `quiet`, or `limit` passed; returns it.
    private func settled(_ value: () -> Int, quiet: Duration = .milliseconds(500), limit: Duration = .seconds(10)) async throws -> Int {
        let deadline = ContinuousClock.now + limit
        var last = value()
        var stableSince = ContinuousClock.now
        while ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            let now = value()
            if now != last {
                last = now
                stableSince = .now
            } else if ContinuousClock.now - stableSince >= quiet {
                return now
            }
        }
        return value()
    }

    // MARK: Without timers

    @Test func suspendingAnUnstartedRequestDefersItsStart() async throws {
        let server = try await Fixtures.server()
        let path = "/anything/deferred-\(UUID().uuidString)"
        let request = Fixtures.session.request(server.url(path))
        request.suspend()
        let consumer = Task { try await request.decode(Echo.self) }
        // Two requests through the same session, made after the consumer asked: both reach the
        // server while the suspended one does not.
        for _ in 0..<2 { _ = try await Fixtures.session.request(server.url("/anything/barrier")).data() }
        #expect(server.requestCount(path: path) == 0, "a suspended request does not start")
        request.resume()
        let echo = try await consumer.value
        #expect(echo.path == path)
        #expect(server.requestCount(path: path) == 1)
    }

    @Test func resumingOrSuspendingAFinishedRequestDoesNothing() async throws {
        let server = try await Fixtures.server()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let download = Fixtures.session.download(server.url("/bytes/100"), to: .directory(directory))
        let file = try await download.fileURL()
        download.resume()
        download.suspend()
        download.resume()
        var events: [String] = []
        for try await event in download.events { events.append("\(event)".components(separatedBy: "(").first ?? "") }
        #expect(events == ["completed"], "a finished request reports no suspension")
        #expect(try await download.fileURL() == file)
        #expect(try Data(contentsOf: file).count == 100)
    }

    @Test func aRequestCancelledWhileSuspendedLeavesNothingAndItsHandleServesTheNext() async throws {
        let server = try await Fixtures.server()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let session = session()
        defer { Task { await session.shutdown() } }
        let download = session.download(server.url("/drip?bytes=40000&duration=20000&chunks=200"), to: .directory(directory))
        var sawSuspended = false
        do {
            for try await event in download.events {
                switch event {
                case .downloadProgress(let progress) where progress.completedBytes > 0 && !sawSuspended:
                    download.suspend()
                case .suspended:
                    sawSuspended = true
                    download.cancel()
                default: break
                }
            }
            Issue.record("expected the cancelled download to fail")
        } catch let error as CurlewError {
            #expect(error.kind == .cancelled)
        }
        #expect(sawSuspended)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [])
        // The session's pooled handle was paused when it was taken off: later requests run normally.
        for index in 0..<3 {
            let body = try await session.request(server.url("/bytes/20000?seed=\(index)")).data()
            #expect(body == Data(TestServer.expectedBytes(count: 20000, seed: UInt64(index))))
        }
    }

    // MARK: Holding a suspension (serial phase)

    @Test func aSuspendedDownloadOutlivesItsIdleTimeoutTiming() async throws {
        let server = try await Fixtures.server()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let session = session(idle: .seconds(1))
        defer { Task { await session.shutdown() } }
        let download = session.download(server.url("/drip?bytes=300000&duration=1500&chunks=30"), to: .directory(directory))
        var order: [String] = []
        var bytesAtSuspension: Int64 = -1
        var progressWhileSuspended: [Int64] = []
        var suspended = false
        for try await event in download.events {
            switch event {
            case .downloadProgress(let progress):
                if suspended { progressWhileSuspended.append(progress.completedBytes) }
                if progress.completedBytes > 0 && order.isEmpty {
                    order.append("suspend")
                    download.suspend()
                }
            case .suspended:
                order.append("suspended")
                suspended = true
                bytesAtSuspension = try FileManager.default.contentsOfDirectory(atPath: directory.path)
                    .reduce(0) { sum, name in
                        sum + ((try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)[.size] as? Int64) ?? 0)
                    }
                // The scenario itself: three idle-timeouts' worth of suspension.
                try await Task.sleep(for: .seconds(3))
                download.resume()
            case .resumed:
                order.append("resumed")
                suspended = false
            case .completed(let done):
                order.append("completed")
                #expect(try Data(contentsOf: done.fileURL ?? directory).count == 300000)
            case .response, .uploadProgress, .wireTrace: break
            }
        }
        #expect(order == ["suspend", "suspended", "resumed", "completed"])
        #expect(bytesAtSuspension > 0 && bytesAtSuspension < 300000)
        #expect(progressWhileSuspended.allSatisfy { $0 <= bytesAtSuspension }, "no bytes arrive while suspended: \(progressWhileSuspended)")
    }

    @Test func aSuspendedDownloadStallsTheServersWritesTiming() async throws {
        let server = try await WireServer.start()
        defer { Task { await server.shutdown() } }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let session = session()
        defer { Task { await session.shutdown() } }
        let chunk = [UInt8](repeating: UInt8(ascii: "z"), count: 256 << 10)
        let chunks = 1024  // 256 MiB, far more than the socket buffers hold
        let total = chunk.count * chunks
        let sent = Count()
        let serverSide = Task {
            let connection = try await server.nextConnection()
            await connection.readHead()
            try await connection.send("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: \(total)\r\n\r\n")
            for _ in 0..<chunks {
                try await connection.send(chunk)
                sent.add(chunk.count)
            }
            await connection.close()
        }
        let download = session.download(server.url("/big"), to: .directory(directory))
        var asked = false
        var lastProgress: Int64 = 0
        var receivedAtSuspension: Int64 = -1
        var stalledAt = -1
        for try await event in download.events {
            switch event {
            case .downloadProgress(let progress):
                lastProgress = progress.completedBytes
                if progress.completedBytes > 0 && !asked {
                    asked = true
                    download.suspend()
                }
            case .suspended:
                receivedAtSuspension = lastProgress
                // The server's writes stop completing once the socket buffers are full.
                stalledAt = try await settled { sent.current }
                download.resume()
            default: break
            }
        }
        try await serverSide.value
        #expect(receivedAtSuspension >= 0)
        #expect(stalledAt > 0 && stalledAt < total, "the server's writes stalled while the client was suspended (\(stalledAt) of \(total) sent)")
        // What the server got out beyond what the client had at its pause sits in socket buffers.
        #expect(Int64(stalledAt) - receivedAtSuspension < 48 << 20, "sent \(stalledAt), received \(receivedAtSuspension) at the pause")
        #expect(sent.current == total)
        let file = directory.appendingPathComponent("big")
        #expect((try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) == total)
    }

    @Test func aConsumerDrainingItsBufferDoesNotUndoASuspensionTiming() async throws {
        let server = try await Fixtures.server()
        let session = session(streamBufferSize: 64 << 10)
        defer { Task { await session.shutdown() } }
        let total = 8 << 20
        let request = session.request(server.url("/bytes/\(total)"))
        let received = Count()
        var iterator = request.bytes.makeAsyncIterator()
        guard let first = try await iterator.next() else {
            Issue.record("expected a first chunk")
            return
        }
        received.add(first.count)
        // Made once the body streams (reading `events` earlier would start a collecting transfer).
        let events = request.events
        let suspendedSignal = AsyncStream.makeStream(of: Void.self)
        let watcher = Task {
            for try await event in events {
                if case .suspended = event { suspendedSignal.continuation.yield() }
            }
        }
        request.suspend()
        var signals = suspendedSignal.stream.makeAsyncIterator()
        _ = await signals.next()
        let reader = Task { [iterator] in
            var iterator = iterator
            while let chunk = try await iterator.next() { received.add(chunk.count) }
        }
        // The consumer drains the buffer (and asks for more); the suspension must hold.
        let whileSuspended = try await settled { received.current }
        #expect(whileSuspended < total / 2, "\(whileSuspended) of \(total) bytes arrived while suspended")
        request.resume()
        try await reader.value
        #expect(received.current == total)
        watcher.cancel()
    }

    @Test func aSuspendedUploadStopsSendingTiming() async throws {
        let server = try await WireServer.start()
        defer { Task { await server.shutdown() } }
        let session = session()
        defer { Task { await session.shutdown() } }
        let total = 32 << 20
        let body = Data(repeating: UInt8(ascii: "u"), count: total)
        let request = session.request(server.url("/upload"), method: .post, body: .data(body))
        let connectionTask = Task { try await server.nextConnection() }
        let suspended = AsyncStream.makeStream(of: Void.self)
        let consumer = Task {
            var asked = false
            for try await event in request.events {
                switch event {
                case .uploadProgress(let progress) where progress.completedBytes > 0 && !asked:
                    asked = true
                    request.suspend()
                case .suspended: suspended.continuation.yield()
                default: break
                }
            }
        }
        let connection = try await connectionTask.value
        let reading = Task { await connection.read { $0.count >= total } }
        var signals = suspended.stream.makeAsyncIterator()
        _ = await signals.next()
        let whileSuspended = try await settled { connection.received.count }
        #expect(whileSuspended < total / 2, "\(whileSuspended) of \(total) bytes arrived while suspended")
        request.resume()
        let all = await reading.value
        #expect(all.count >= total, "the rest arrives once resumed")
        try await connection.send("HTTP/1.1 204 No Content\r\n\r\n")
        try await consumer.value
        await connection.close()
    }

    @Test func theTotalTimeoutCountsTheSuspensionTiming() async throws {
        let server = try await Fixtures.server()
        let session = session(total: .milliseconds(1500))
        defer { Task { await session.shutdown() } }
        let request = session.request(server.url("/drip?bytes=10000&duration=1000&chunks=10"))
        let started = ContinuousClock.now
        let safety = Task {
            try await Task.sleep(for: .seconds(6))
            request.resume()
        }
        defer { safety.cancel() }
        let error = await #expect(throws: CurlewError.self) {
            for try await event in request.events {
                if case .downloadProgress(let progress) = event, progress.completedBytes > 0 { request.suspend() }
            }
        }
        #expect(error?.kind == .totalTimeout)
        #expect(ContinuousClock.now - started < .seconds(5), "the deadline passed while suspended")
    }
}
