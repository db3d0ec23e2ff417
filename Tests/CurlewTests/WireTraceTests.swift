@testable import Curlew
import Foundation
import Logging
import Testing
import TestServer

/// The wire trace against real servers: head lines as they were on the wire, libcurl's text,
/// byte counts, redaction, and no trace left on a pooled handle.
@Suite("Wire trace")
struct WireTraceTests {
    /// A trace whose log messages land in the returned recorder.
    static func capturingTrace(includesBodyBytes: Bool = false) -> (WireTrace, Recorder<(Logger.Level, String)>) {
        let messages = Recorder<(Logger.Level, String)>()
        let logger = Logger(label: "wire") { _ in CapturingLogHandler(messages: messages) }
        return (WireTrace(logger: logger, includesBodyBytes: includesBodyBytes), messages)
    }

    static func lines(_ messages: Recorder<(Logger.Level, String)>, prefix: String) -> [String] {
        messages.all.flatMap { $0.1.split(separator: "\n").map(String.init) }
            .filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    @Test func headLinesAreWhatWentOverTheWire() async throws {
        let wire = try await WireServer.start()
        let (trace, messages) = Self.capturingTrace()
        var configuration = SessionConfiguration()
        configuration.wireTrace = trace
        let session = Session(configuration: configuration)
        async let answer = session.request(wire.url("/head?page=1"), headers: ["X-Sent": "one"]).string()
        let connection = try await wire.nextConnection()
        let head = await connection.readHead()
        let reply = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Reply: yes\r\n\r\n"
        try await connection.send(reply + "ok")
        #expect(try await answer == "ok")
        await connection.close()
        await session.shutdown()
        await wire.shutdown()
        let wireLines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(Self.lines(messages, prefix: "> ") == wireLines)
        #expect(Self.lines(messages, prefix: "< ").filter { !$0.hasPrefix("[") }
            == reply.components(separatedBy: "\r\n").filter { !$0.isEmpty })
        #expect(Self.lines(messages, prefix: "< ").contains("[2 body bytes]"))
        #expect(messages.all.allSatisfy { $0.0 == .debug })
        #expect(Self.lines(messages, prefix: "* ").contains { $0.contains("Connected to") }, "libcurl's text")
    }

    @Test func aSecondRequestShowsTheConnectionReused() async throws {
        let server = try await Fixtures.server()
        let session = Session()
        defer { Task { await session.shutdown() } }
        var results: [[String]] = []
        for _ in 0..<2 {
            let (trace, messages) = Self.capturingTrace()
            var options = RequestOptions()
            options.wireTrace = trace
            _ = try await session.request(server.url("/get"), options: options).data()
            results.append(Self.lines(messages, prefix: "* "))
        }
        #expect(!results[0].contains { $0.contains("Re-using existing connection") })
        #expect(results[1].contains { $0.contains("Re-using existing connection") }, "\(results[1])")
    }

    @Test func secretsAreRedacted() async throws {
        let server = try await Fixtures.server()
        let (trace, messages) = Self.capturingTrace()
        var configuration = SessionConfiguration()
        configuration.wireTrace = trace
        let session = Session(configuration: configuration)
        defer { Task { await session.shutdown() } }
        _ = try await session.request(
            server.url("/anything?access_token=T0KEN&x=1"),
            headers: ["Authorization": "Bearer S3CRET", "Cookie": "sid=C00KIE", "X-Api-Key": "K3Y",
                      "Proxy-Authorization": "Basic PR0XY"]
        ).data()
        _ = try await session.request(server.url("/cookies/set?sid=SETC00KIE")).data()
        // The cookie set through /cookies/set's query is in that request line, an ordinary query value.
        let all = messages.all.map(\.1).joined(separator: "\n").replacingOccurrences(of: "?sid=SETC00KIE", with: "")
        for secret in ["T0KEN", "S3CRET", "C00KIE", "K3Y", "PR0XY", "SETC00KIE"] {
            #expect(!all.contains(secret), "\(secret) leaked")
        }
        let sent = Self.lines(messages, prefix: "> ")
        #expect(sent.contains("GET /anything?access_token=***&x=1 HTTP/1.1"))
        #expect(sent.contains("Authorization: Bearer ***") && sent.contains("Cookie: ***"))
        #expect(sent.contains("Proxy-Authorization: Basic ***") && sent.contains("X-Api-Key: ***"))
        #expect(Self.lines(messages, prefix: "< ").contains("Set-Cookie: sid=***; Path=/"))
    }

    @Test func eventsCarryRecordsAndBodyBytesOnlyWhenAsked() async throws {
        let server = try await Fixtures.server()
        let session = Session()
        defer { Task { await session.shutdown() } }
        for includesBodyBytes in [false, true] {
            var options = RequestOptions()
            options.wireTrace = WireTrace(includesBodyBytes: includesBodyBytes)
            let request = session.request(server.url("/post"), method: .post, body: .string("hello"), options: options)
            var records: [WireTraceRecord] = []
            for try await event in request.events {
                if case .wireTrace(let record) = event { records.append(record) }
            }
            let sentBody = records.filter { $0.kind == .requestBody }
            #expect(sentBody.reduce(0) { $0 + $1.byteCount } == 5)
            #expect(sentBody.compactMap(\.bodyBytes).reduce(Data(), +) == (includesBodyBytes ? Data("hello".utf8) : Data()))
            #expect(records.contains { $0.kind == .requestHead && $0.lines.first == "POST /post HTTP/1.1" })
            #expect(records.filter { $0.kind == .responseBody }.reduce(0) { $0 + $1.byteCount } > 0)
        }
    }

    /// A traced request, then untraced ones on the same session (one connection, so the same
    /// pooled handle): no callback reaches them, and a session's trace turned off for one
    /// request logs nothing for it.
    @Test func traceOffLeavesNoTraceOnThePooledHandle() async throws {
        let server = try await Fixtures.server()
        let (trace, messages) = Self.capturingTrace()
        var configuration = SessionConfiguration()
        configuration.maximumConnectionsPerHost = 1
        let session = Session(configuration: configuration)
        defer { Task { await session.shutdown() } }
        var traced = RequestOptions()
        traced.wireTrace = trace
        _ = try await session.request(server.url("/get"), options: traced).data()
        let tracedCount = messages.count
        #expect(tracedCount > 0)
        let before = WireTraceRedaction.untracedCallbacks.load(ordering: .relaxed)
        for _ in 0..<3 {
            let response = try await session.request(server.url("/get")).response
            #expect(response.metrics.connectionReused)
        }
        #expect(WireTraceRedaction.untracedCallbacks.load(ordering: .relaxed) == before, "an untraced hop got callbacks")
        #expect(messages.count == tracedCount)

        let (sessionTrace, sessionMessages) = Self.capturingTrace()
        var tracedConfiguration = SessionConfiguration()
        tracedConfiguration.wireTrace = sessionTrace
        let tracedSession = Session(configuration: tracedConfiguration)
        defer { Task { await tracedSession.shutdown() } }
        var off = RequestOptions()
        off.wireTrace = .off
        _ = try await tracedSession.request(server.url("/get"), options: off).data()
        #expect(sessionMessages.all.isEmpty)
        _ = try await tracedSession.request(server.url("/get")).data()
        #expect(!sessionMessages.all.isEmpty)
    }
}

/// TLS through nginx: libcurl's handshake text, TLS records as counts only.
@Suite(
    "Wire trace over TLS", .enabled(if: NginxServer.isAvailable, "nginx is not installed"),
    .nginx(fixedResponses: ["/kib": String(repeating: "x", count: 1024)]))
struct WireTraceTLSTests {
    @Test func anHTTPSRequestShowsTheTLSHandshake() async throws {
        let nginx = try NginxSuiteScope.server()
        var configuration = SessionConfiguration()
        configuration.trust = TrustConfiguration(default: .certificateAuthorities([.file(nginx.caCertificatePath)]))
        let (trace, messages) = WireTraceTests.capturingTrace(includesBodyBytes: true)
        configuration.wireTrace = trace
        let session = Session(configuration: configuration)
        defer { Task { await session.shutdown() } }
        var options = RequestOptions()
        options.httpVersion = .http1_1
        _ = try await session.request(nginx.url("/kib"), options: options).data()
        let text = WireTraceTests.lines(messages, prefix: "* ")
        #expect(text.contains { $0.contains("SSL connection using") }, "\(text)")
        let all = messages.all.map(\.1)
        #expect(all.contains { $0.contains("TLS bytes]") })
        #expect(WireTraceTests.lines(messages, prefix: "< ").contains("[1024 body bytes]"))
    }
}
