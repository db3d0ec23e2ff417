@testable import Curlew
import Foundation
import HTTPTypes
import Logging
import Testing
import TestServer

/// Records every hook as a short line.
struct RecordingMonitor: EventMonitor {
    let lines = Recorder<String>()
    let ids = Recorder<RequestID>()

    func requestCreated(_ id: RequestID, request: OutgoingRequest?) {
        ids.append(id)
        lines.append("created \(request?.url.path ?? "invalid")")
    }
    func request(_ id: RequestID, didAdapt original: OutgoingRequest, to adapted: OutgoingRequest, attempt: Int) {
        lines.append("adapted \(attempt)")
    }
    func request(_ id: RequestID, didStart request: OutgoingRequest, attempt: Int) {
        lines.append("started \(attempt)")
    }
    func request(_ id: RequestID, didReceive head: HTTPResponse, for request: OutgoingRequest, attempt: Int) {
        lines.append("head \(head.status.code)")
    }
    func request(_ id: RequestID, didGather metrics: TransferMetrics, for request: OutgoingRequest, attempt: Int) {
        lines.append("metrics \(attempt) \(metrics.bytesReceived > 0)")
    }
    func request(_ id: RequestID, willRetry request: OutgoingRequest, after error: CurlewError, attempt: Int, delay: Duration) {
        lines.append("retry \(attempt) \(error.kind)")
    }
    func request(
        _ id: RequestID, didFinish request: OutgoingRequest?, with result: Result<TransferCompletion, CurlewError>,
        attempts: Int
    ) {
        switch result {
        case .success(let completion): lines.append("finished \(completion.head.status.code) after \(attempts)")
        case .failure(let error): lines.append("failed \(error.kind) after \(attempts)")
        }
    }
    func request<Value: Sendable>(_ id: RequestID, didSerialize result: Result<Response<Value>, CurlewError>) {
        lines.append("serialized \(Value.self) \((try? result.get()) != nil)")
    }
}

/// A swift-log handler that keeps the messages.
struct CapturingLogHandler: LogHandler {
    let messages: Recorder<(Logger.Level, String)>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        messages.append((event.level, event.message.description))
    }
}

@Suite("Event monitors and the logging monitor")
struct EventMonitorTests {
    func session(_ monitors: [any EventMonitor], interceptors: [any RequestInterceptor] = []) -> Session {
        var configuration = SessionConfiguration()
        configuration.eventMonitors = monitors
        return Session(configuration: configuration, interceptors: interceptors)
    }

    @Test func hooksFireInPipelineOrderAcrossARetry() async throws {
        let counter = CallCounter()
        let server = try await ScriptedHTTPServer.start { _ in
            counter.next() == 1 ? .text("busy", status: 503) : .text("fine")
        }
        defer { Task { await server.shutdown() } }
        let first = RecordingMonitor()
        let second = RecordingMonitor()
        let session = session(
            [CompositeEventMonitor([first]), second], interceptors: [RetryPolicy(backoffScale: .milliseconds(5))])
        defer { Task { await session.shutdown() } }
        let request = session.request(server.url("/monitored")).validate()
        #expect(try await request.string() == "fine")
        let expected = [
            "created /monitored",
            "adapted 1", "started 1", "head 503", "metrics 1 true", "retry 1 unacceptableStatus",
            "adapted 2", "started 2", "head 200", "metrics 2 true", "finished 200 after 2",
            "serialized String true",
        ]
        #expect(first.lines.all == expected)
        #expect(second.lines.all == expected, "monitors compose: both see everything")
        #expect(first.ids.all == second.ids.all)
        _ = try await request.data()
        #expect(first.lines.all.last == "serialized Data true")
        // `data()` and `result()` skip building a Response only when no monitor watches.
        _ = await request.dataResult()
        #expect(first.lines.all.filter { $0 == "serialized Data true" }.count == 2, "\(first.lines.all)")
        #expect(counter.count() == 2)
    }

    @Test func failuresInvalidRequestsAndDownloadsAreReported() async throws {
        let server = try await Fixtures.server()
        let monitor = RecordingMonitor()
        let session = session([monitor])
        defer { Task { await session.shutdown() } }
        let invalid = await #expect(throws: CurlewError.self) { _ = try await session.request("http://").data() }
        #expect(invalid?.kind == .invalidURL)
        #expect(monitor.lines.all == ["created invalid", "failed invalidURL after 0", "serialized Data false"])

        let port = try closedLoopbackPort()
        let refused = RecordingMonitor()
        let other = self.session([refused])
        defer { Task { await other.shutdown() } }
        let refusedError = await #expect(throws: CurlewError.self) {
            _ = try await other.request("http://127.0.0.1:\(port)/x").data()
        }
        #expect(refusedError?.kind == .connectionRefused)
        #expect(refused.lines.all == ["created /x", "adapted 1", "started 1", "failed connectionRefused after 1", "serialized Data false"])

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-monitor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let downloads = RecordingMonitor()
        let downloader = self.session([downloads])
        defer { Task { await downloader.shutdown() } }
        _ = try await downloader.download(server.url("/bytes/100"), to: .directory(directory)).fileURL()
        #expect(downloads.lines.all == ["created /bytes/100", "adapted 1", "started 1", "head 200", "metrics 1 true", "finished 200 after 1"])
    }

    @Test func loggingLevelsAndRedaction() async throws {
        let server = try await ScriptedHTTPServer.start { _ in
            .json(["access_token": "at-secret", "scope": "read"], headers: [("Set-Cookie", "sid=cookie-secret")])
        }
        defer { Task { await server.shutdown() } }
        let messages = Recorder<(Logger.Level, String)>()
        let logger = Logger(label: "test") { _ in CapturingLogHandler(messages: messages) }
        let headers: HTTPFields = [
            .authorization: "Bearer top-secret-token", .cookie: "session=hunter2",
            HTTPField.Name("X-Visible")!: "plain", .contentType: "application/x-www-form-urlencoded",
        ]
        let body = RequestBody.string("grant_type=refresh_token&refresh_token=rt-secret&client_id=app")

        for detail in [LoggingEventMonitor.Detail.url, .headers, .everything] {
            let before = messages.count
            let session = session([LoggingEventMonitor(logger: logger, detail: detail)])
            _ = try await session.request(server.url("/anything/log"), method: .post, headers: RequestHeaders(headers), body: body).data()
            await session.shutdown()
            let logged = messages.all[before...].map(\.1).joined(separator: "\n")
            #expect(logged.contains("→ POST \(server.url("/anything/log").absoluteString)"))
            #expect(logged.contains("← 200 POST"))
            #expect(!logged.contains("top-secret-token"), "Authorization is redacted at \(detail)")
            #expect(!logged.contains("hunter2"), "Cookie is redacted at \(detail)")
            #expect(!logged.contains("rt-secret"), "the refresh token in the body is redacted at \(detail)")
            #expect(!logged.contains("at-secret") && !logged.contains("cookie-secret"), "response secrets at \(detail)")
            #expect(logged.contains("\"scope\":\"read\"") == (detail == .everything))
            #expect(logged.contains("X-Visible: plain") == (detail >= .headers))
            #expect(logged.contains("Authorization: <redacted>") == (detail >= .headers))
            #expect(logged.contains("client_id=app") == (detail == .everything))
        }
        #expect(messages.all.allSatisfy { $0.0 == .info })

        let failures = Recorder<(Logger.Level, String)>()
        let failureLogger = Logger(label: "test") { _ in CapturingLogHandler(messages: failures) }
        let failing = session(
            [LoggingEventMonitor(logger: failureLogger)], interceptors: [RetryPolicy(retryLimit: 1, backoffScale: .milliseconds(5))])
        defer { Task { await failing.shutdown() } }
        let main = try await Fixtures.server()
        let exceeded = await #expect(throws: CurlewError.self) {
            _ = try await failing.request(main.url("/status/503")).validate().data()
        }
        #expect(exceeded?.kind == .retryLimitExceeded)
        let levels = failures.all.map(\.0)
        #expect(levels == [.info, .warning, .info, .warning], "start, retry, start, failure")
        #expect(failures.all.last?.1.contains("retryLimitExceeded") == true)
    }

    @Test func jsonBodiesAreRedactedByField() {
        let monitor = LoggingEventMonitor(logger: Logger(label: "x"), detail: .everything)
        let rendered = monitor.render(
            Data(#"{"access_token":"at-1","nested":{"refresh_token":"rt-1"},"expires_in":3600}"#.utf8),
            contentType: "application/json")
        #expect(!rendered.contains("at-1") && !rendered.contains("rt-1"))
        #expect(rendered.contains("3600"))
        let binary = monitor.render(Data([0xFF, 0xFE, 0x00, 0x01]), contentType: "application/octet-stream")
        #expect(binary.contains("4 bytes of binary data"))
        #expect(monitor.redacted(URL(string: "http://user:pw@example.com/x")!) == "http://user:***@example.com/x")
    }
}
