import Curlew
import Foundation
import InMemoryTracing
import Testing
import TestServer
import Tracing

@Suite("Tracing: a client span per request")
struct TracingTests {
    func tracedSession(_ tracer: any Tracer, interceptors: [any RequestInterceptor] = [], redaction: TracingConfiguration.QueryRedaction = .default) -> Session {
        var configuration = SessionConfiguration()
        configuration.tracing = TracingConfiguration(tracer: tracer, queryRedaction: redaction)
        return Session(configuration: configuration, interceptors: interceptors)
    }

    @Test func successfulRequestHasTheHTTPClientAttributes() async throws {
        let server = try await Fixtures.server()
        let tracer = InMemoryTracer()
        let session = tracedSession(tracer)
        defer { Task { await session.shutdown() } }
        let url = server.url("/get?page=2&sig=secret")
        _ = try await session.request(url).validate().data()
        let spans = tracer.finishedSpans
        try #require(spans.count == 1)
        let span = spans[0]
        #expect(span.operationName == "GET")
        #expect(span.kind == .client)
        #expect(span.attribute("http.request.method") == .string("GET"))
        let expectedURL = url.absoluteString.replacingOccurrences(of: "sig=secret", with: "sig=REDACTED")
        #expect(span.attribute("url.full") == .string(expectedURL))
        #expect(span.attribute("server.address") == .string(url.host ?? ""))
        #expect(span.attribute("server.port") == .int64(Int64(url.port ?? 0)))
        #expect(span.attribute("http.response.status_code") == .int64(200))
        #expect(span.attribute("network.protocol.version") == .string("1.1"))
        #expect(span.attribute("error.type") == nil)
        #expect(span.attribute("http.request.resend_count") == nil)
        #expect(span.status == nil)
        #expect(span.errors.isEmpty)
    }

    @Test func notFoundIsAnErrorSpanNamedByItsStatus() async throws {
        let server = try await Fixtures.server()
        let tracer = InMemoryTracer()
        let session = tracedSession(tracer)
        defer { Task { await session.shutdown() } }
        // Not validated: the request succeeds, but a 4xx is an error for a client span.
        _ = try await session.request(server.url("/status/404")).data()
        // Validated: the request throws, and the status still names the error.
        _ = try? await session.request(server.url("/status/404")).validate().data()
        let spans = tracer.finishedSpans
        try #require(spans.count == 2)
        for span in spans {
            #expect(span.attribute("http.response.status_code") == .int64(404))
            #expect(span.attribute("error.type") == .string("404"))
            #expect(span.status?.code == .error)
        }
        #expect(spans[0].errors.isEmpty)
        #expect((spans[1].errors.first?.error as? CurlewError)?.kind == .unacceptableStatus)
    }

    @Test func connectionRefusedNamesTheErrorKind() async throws {
        let port = try closedLoopbackPort()
        let tracer = InMemoryTracer()
        let session = tracedSession(tracer)
        defer { Task { await session.shutdown() } }
        _ = try? await session.request("http://127.0.0.1:\(port)/nothing").data()
        let spans = tracer.finishedSpans
        try #require(spans.count == 1)
        #expect(spans[0].attribute("error.type") == .string("connectionRefused"))
        #expect(spans[0].attribute("http.response.status_code") == nil)
        #expect(spans[0].attribute("server.port") == .int64(Int64(port)))
        #expect(spans[0].status?.code == .error)
        #expect((spans[0].errors.first?.error as? CurlewError)?.kind == .connectionRefused)
    }

    @Test func cancellingARunningRequestEndsItsSpanWithAnError() async throws {
        let server = try await Fixtures.server()
        let tracer = InMemoryTracer()
        let session = tracedSession(tracer)
        defer { Task { await session.shutdown() } }
        let path = "/anything/traced-cancel-\(UUID().uuidString)"
        let task = Task { try await session.request(server.url(path), headers: ["X-Test-Delay-Ms": "30000"]).data() }
        try await waitUntil { server.requestCount(path: path) == 1 }
        #expect(tracer.activeSpans.count == 1, "the span is open while the request runs")
        task.cancel()
        _ = try? await task.value
        let spans = tracer.finishedSpans
        try #require(spans.count == 1)
        #expect(tracer.activeSpans.isEmpty)
        #expect(spans[0].attribute("error.type") == .string("taskCancelled"))
        #expect(spans[0].status?.code == .error)
    }

    @Test func traceparentOnTheWireNamesTheSpanAndItsParent() async throws {
        let server = try await Fixtures.server()
        let tracer = W3CTestTracer()
        let session = tracedSession(tracer)
        defer { Task { await session.shutdown() } }
        let data = try await tracer.withSpan("parent") { _ in
            try await session.request(server.url("/anything/traced")).data()
        }
        let echo = try Fixtures.echo(data)
        let spans = tracer.finishedSpans
        let request = try #require(spans.first { $0.operationName == "GET" })
        let parent = try #require(spans.first { $0.operationName == "parent" })
        #expect(echo.headerLines(named: "traceparent") == ["00-\(request.traceID)-\(request.spanID)-01"])
        #expect(request.traceID == parent.traceID)
        #expect(request.parentSpanID == parent.spanID)
        #expect(request.traceID.count == 32)
    }

    @Test func retriedRequestCountsItsResendsInOneSpan() async throws {
        let counter = CallCounter()
        let seen = Recorder<String>()
        let server = try await ScriptedHTTPServer.start { request in
            seen.append(request.headerLines(named: "traceparent").joined(separator: ","))
            return counter.next() <= 2 ? .text("busy", status: 503) : .text("fine")
        }
        defer { Task { await server.shutdown() } }
        let tracer = W3CTestTracer()
        let session = tracedSession(tracer, interceptors: [RetryPolicy(backoffScale: .milliseconds(5))])
        defer { Task { await session.shutdown() } }
        _ = try await session.request(server.url("/retried")).validate().data()
        let spans = tracer.finishedSpans
        try #require(spans.count == 1)
        #expect(spans[0].attribute("http.request.resend_count") == .int64(2))
        #expect(spans[0].attribute("http.response.status_code") == .int64(200))
        #expect(spans[0].attribute("error.type") == nil)
        let expected = "00-\(spans[0].traceID)-\(spans[0].spanID)-01"
        #expect(seen.all == [expected, expected, expected], "every attempt carries the trace context")
    }

    @Test func streamedBodyEndsItsSpanWithTheTransfer() async throws {
        let server = try await Fixtures.server()
        let tracer = InMemoryTracer()
        let session = tracedSession(tracer)
        defer { Task { await session.shutdown() } }
        var received = 0
        for try await chunk in session.request(server.url("/stream-bytes/3000")).bytes { received += chunk.count }
        #expect(received == 3000)
        try await waitUntil { tracer.finishedSpans.count == 1 }
        #expect(tracer.finishedSpans.first?.attribute("http.response.status_code") == .int64(200))
        #expect(tracer.finishedSpans.first?.status == nil)
    }

    @Test func credentialsAndChosenQueryValuesAreRedacted() async throws {
        let server = try await Fixtures.server()
        let tracer = InMemoryTracer()
        let session = tracedSession(tracer, redaction: .all)
        defer { Task { await session.shutdown() } }
        let base = server.url("/anything/redacted")
        let text = base.absoluteString.replacingOccurrences(of: "://", with: "://ann:hunter2@") + "?token=abc&page=2#top"
        _ = try await session.request(text).data()
        let full = tracer.finishedSpans.first?.attribute("url.full")
        let expected = base.absoluteString.replacingOccurrences(of: "://", with: "://REDACTED:REDACTED@")
            + "?token=REDACTED&page=REDACTED"
        #expect(full == .string(expected))
    }

    @Test func disabledTracingStartsNoSpanAndSendsNoContext() async throws {
        let server = try await Fixtures.server()
        let tracer = W3CTestTracer()
        var configuration = SessionConfiguration()
        configuration.tracing = TracingConfiguration(tracer: tracer)
        configuration.tracing.isEnabled = false
        let session = Session(configuration: configuration)
        defer { Task { await session.shutdown() } }
        let echo = try Fixtures.echo(try await session.request(server.url("/anything/untraced")).data())
        #expect(echo.headerLines(named: "traceparent").isEmpty)
        #expect(tracer.finishedSpans.isEmpty)
    }
}
