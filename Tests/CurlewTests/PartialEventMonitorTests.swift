import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

/// Monitors that implement a few hooks of ``EventMonitor`` and leave the rest to its empty
/// defaults: the hooks they do implement are still the ones called (a requirement whose
/// implementation does not match its signature would silently fall back to the default), and
/// the defaults change nothing about the request.
@Suite("Event monitors that implement only some hooks")
struct PartialEventMonitorTests {
    /// Implements nothing: every hook is the default.
    struct SilentMonitor: EventMonitor {}

    /// Implements only the end of a request and its serializations.
    struct EndsOnlyMonitor: EventMonitor {
        let lines = Recorder<String>()

        func request(
            _ id: RequestID, didFinish request: OutgoingRequest?, with result: Result<TransferCompletion, CurlewError>,
            attempts: Int
        ) {
            let outcome = (try? result.get()).map { "\($0.head.status.code)" } ?? "failure"
            lines.append("finished \(request?.url.path ?? "-") \(outcome) after \(attempts)")
        }

        func request<Value: Sendable>(_ id: RequestID, didSerialize result: Result<Response<Value>, CurlewError>) {
            lines.append("serialized \(Value.self) \((try? result.get()) != nil)")
        }
    }

    /// Implements only the start of each attempt and the retry notice.
    struct AttemptsOnlyMonitor: EventMonitor {
        let lines = Recorder<String>()

        func request(_ id: RequestID, didStart request: OutgoingRequest, attempt: Int) {
            lines.append("started \(attempt)")
        }

        func request(_ id: RequestID, willRetry request: OutgoingRequest, after error: CurlewError, attempt: Int, delay: Duration) {
            lines.append("retry after \(attempt): \(error.status?.code ?? 0), \(delay)")
        }
    }

    @Test func implementedHooksAreCalledAndDefaultsChangeNothing() async throws {
        let counter = CallCounter()
        let server = try await ScriptedHTTPServer.start { _ in
            counter.next() == 1 ? .text("busy", status: 503) : .text("fine")
        }
        defer { Task { await server.shutdown() } }
        let ends = EndsOnlyMonitor()
        let attempts = AttemptsOnlyMonitor()
        var configuration = SessionConfiguration()
        configuration.eventMonitors = [SilentMonitor(), ends, CompositeEventMonitor([SilentMonitor(), attempts])]
        let session = Session(
            configuration: configuration,
            interceptors: [Interceptor.retrier { _, _, _, context in context.attempt == 1 ? .retryWithDelay(.milliseconds(1)) : .doNotRetry }])
        defer { Task { await session.shutdown() } }

        let request = session.request(server.url("/partial")).validate()
        #expect(try await request.string() == "fine")
        _ = try await request.data()
        #expect(ends.lines.all == ["finished /partial 200 after 2", "serialized String true", "serialized Data true"])
        #expect(attempts.lines.all == ["started 1", "retry after 1: 503, 0.001 seconds", "started 2"])
        #expect(counter.count() == 2)
    }

    @Test func aMonitorWithNoHooksLeavesFailuresAsTheyAre() async throws {
        let port = try closedLoopbackPort()
        let ends = EndsOnlyMonitor()
        var configuration = SessionConfiguration()
        configuration.eventMonitors = [SilentMonitor(), ends]
        let session = Session(configuration: configuration)
        defer { Task { await session.shutdown() } }
        let error = await #expect(throws: CurlewError.self) {
            _ = try await session.request("http://127.0.0.1:\(port)/refused").data()
        }
        #expect(error?.kind == .connectionRefused)
        #expect(ends.lines.all == ["finished /refused failure after 1", "serialized Data false"])
    }
}
