import Curlew
import Foundation
import MetricsTestKit
import Testing
import TestServer

@Suite("Metrics: counts, durations, sizes, connections and requests in flight")
struct ClientMetricsTests {
    func measuredSession(_ metrics: TestMetrics, interceptors: [any RequestInterceptor] = []) -> Session {
        var configuration = SessionConfiguration()
        configuration.metrics = MetricsConfiguration(factory: metrics)
        return Session(configuration: configuration, interceptors: interceptors)
    }

    @Test func valuesAfterAKnownSetOfRequests() async throws {
        let server = try await Fixtures.server()
        let refused = try closedLoopbackPort()
        let metrics = TestMetrics()
        let session = measuredSession(metrics)
        defer { Task { await session.shutdown() } }
        _ = try await session.request(server.url("/bytes/100")).data()
        _ = try await session.request(server.url("/bytes/50")).data()
        _ = try await session.request(server.url("/status/404")).data()
        _ = try? await session.request(server.url("/status/503")).validate().data()
        _ = try await session.request(server.url("/post"), method: .post, body: .data(Data("hello".utf8))).data()
        _ = try? await session.request("http://127.0.0.1:\(refused)/").data()

        func requests(_ method: String, _ statusClass: String) throws -> Int64 {
            try metrics.expectCounter("curlew.client.requests", [("method", method), ("status_class", statusClass)]).totalValue
        }
        #expect(try requests("GET", "2xx") == 2)
        #expect(try requests("GET", "4xx") == 1)
        #expect(try requests("GET", "5xx") == 1)
        #expect(try requests("POST", "2xx") == 1)
        #expect(try requests("GET", "error") == 1)
        #expect(metrics.counterTotal(label: "curlew.client.requests") == 6)

        #expect(try metrics.expectCounter("curlew.client.errors", [("kind", "unacceptableStatus")]).totalValue == 1)
        #expect(try metrics.expectCounter("curlew.client.errors", [("kind", "connectionRefused")]).totalValue == 1)
        #expect(metrics.counterTotal(label: "curlew.client.errors") == 2)

        let ok = try metrics.expectTimer(
            "http.client.request.duration", [("http.request.method", "GET"), ("http.response.status_code", "200")])
        #expect(ok.values.count == 2)
        #expect(ok.values.allSatisfy { $0 > 0 })
        let notFound = try metrics.expectTimer(
            "http.client.request.duration",
            [("http.request.method", "GET"), ("http.response.status_code", "404"), ("error.type", "404")])
        #expect(notFound.values.count == 1)
        let failed = try metrics.expectTimer(
            "http.client.request.duration", [("http.request.method", "GET"), ("error.type", "connectionRefused")])
        #expect(failed.values.count == 1)

        // Body bytes as they came over the wire, per transfer that got a response.
        let received = try metrics.expectRecorder("http.client.response.body.size", [("http.request.method", "GET")])
        #expect(received.values.prefix(2) == [100, 50])
        let sent = try metrics.expectRecorder("http.client.request.body.size", [("http.request.method", "POST")])
        #expect(sent.values == [5])

        // Five transfers reached the server over keep-alive connections: the first opened one.
        let opened = try metrics.expectCounter("curlew.client.connections", [("state", "opened")]).totalValue
        let reused = try metrics.expectCounter("curlew.client.connections", [("state", "reused")]).totalValue
        #expect(opened + reused == 5)
        #expect(opened >= 1)
        #expect(reused >= 1)

        #expect(try metrics.expectMeter("http.client.active_requests").lastValue == 0)
    }

    @Test func retriesAreCountedAndTheRequestOnce() async throws {
        let counter = CallCounter()
        let server = try await ScriptedHTTPServer.start { _ in
            counter.next() <= 2 ? .text("busy", status: 503) : .text("fine")
        }
        defer { Task { await server.shutdown() } }
        let metrics = TestMetrics()
        let session = measuredSession(metrics, interceptors: [RetryPolicy(backoffScale: .milliseconds(5))])
        defer { Task { await session.shutdown() } }
        _ = try await session.request(server.url("/retried")).validate().data()
        #expect(try metrics.expectCounter("curlew.client.retries").totalValue == 2)
        #expect(metrics.counterTotal(label: "curlew.client.requests") == 1)
        #expect(try metrics.expectCounter("curlew.client.requests", [("method", "GET"), ("status_class", "2xx")]).totalValue == 1)
        #expect(metrics.counterTotal(label: "curlew.client.connections") == 3, "each attempt's transfer")
    }

    @Test func requestsInFlightRiseAndFallAlsoOnCancellation() async throws {
        let server = try await Fixtures.server()
        let metrics = TestMetrics()
        let session = measuredSession(metrics)
        defer { Task { await session.shutdown() } }
        let path = "/anything/metered-cancel-\(UUID().uuidString)"
        let task = Task { try await session.request(server.url(path), headers: ["X-Test-Delay-Ms": "30000"]).data() }
        try await waitUntil { server.requestCount(path: path) == 1 }
        #expect(try metrics.expectMeter("http.client.active_requests").lastValue == 1)
        task.cancel()
        _ = try? await task.value
        #expect(try metrics.expectMeter("http.client.active_requests").lastValue == 0)
        #expect(try metrics.expectCounter("curlew.client.errors", [("kind", "taskCancelled")]).totalValue == 1)
    }
}
