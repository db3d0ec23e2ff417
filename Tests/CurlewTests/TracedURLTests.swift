@testable import Curlew
import CoreMetrics
import Foundation
import InMemoryTracing
import MetricsTestKit
import Testing

@Suite("url.full redaction and the cost of instrumentation when off")
struct TracedURLTests {
    @Test func plainURLIsUnchanged() {
        #expect(TracedURL.full("https://example.com/a/b", redaction: .all) == "https://example.com/a/b")
    }

    @Test func credentialsAreAlwaysRedacted() {
        #expect(TracedURL.full("https://ann:pw@example.com/x", redaction: .disabled) == "https://REDACTED:REDACTED@example.com/x")
        #expect(TracedURL.full("https://ann@example.com/x", redaction: .disabled) == "https://REDACTED@example.com/x")
        // An "@" in the path is not user info.
        #expect(TracedURL.full("https://example.com/@ann", redaction: .disabled) == "https://example.com/@ann")
    }

    @Test func fragmentIsLeftOut() {
        #expect(TracedURL.full("https://example.com/x?a=1#top", redaction: .disabled) == "https://example.com/x?a=1")
        #expect(TracedURL.full("https://example.com/x#top", redaction: .disabled) == "https://example.com/x")
    }

    @Test func queryRedactionModes() {
        let url = "https://example.com/x?sig=abc&page=2&X-Goog-Signature=zz&flag"
        #expect(TracedURL.full(url, redaction: .disabled) == url)
        #expect(
            TracedURL.full(url, redaction: .default)
                == "https://example.com/x?sig=REDACTED&page=2&X-Goog-Signature=REDACTED&flag")
        #expect(
            TracedURL.full(url, redaction: .all)
                == "https://example.com/x?sig=REDACTED&page=REDACTED&X-Goog-Signature=REDACTED&REDACTED")
        #expect(
            TracedURL.full(url, redaction: .parameters(["page"]))
                == "https://example.com/x?sig=abc&page=REDACTED&X-Goog-Signature=zz&flag")
        // Names are compared decoded.
        #expect(TracedURL.full("https://e.com/?%73ig=1", redaction: .default) == "https://e.com/?%73ig=REDACTED")
    }

    @Test func otelMethodNames() {
        #expect(RequestProbe.otelMethod(.get) == "GET")
        #expect(RequestProbe.otelMethod(.patch) == "PATCH")
        #expect(RequestProbe.otelMethod(.init("PURGE")!) == "_OTHER")
    }

    /// With no tracer bootstrapped (this test process never bootstraps one) and the no-op
    /// metrics factory, a request gets no probe: nothing is allocated or computed for it.
    @Test func nothingObservesRequestsByDefault() async throws {
        let request = OutgoingRequest(url: try #require(URL(string: "http://example.com/")))
        let defaults = SessionInstrumentation(tracing: TracingConfiguration(), metrics: MetricsConfiguration())
        #expect(defaults.metrics == nil)
        #expect(defaults.begin(request) == nil)
        let session = Session()
        #expect(session.instrumentation.begin(request) == nil)
        await session.shutdown()

        var off = TracingConfiguration(tracer: InMemoryTracer())
        off.isEnabled = false
        #expect(SessionInstrumentation(tracing: off, metrics: MetricsConfiguration()).begin(request) == nil)
        #expect(
            SessionInstrumentation(tracing: TracingConfiguration(), metrics: MetricsConfiguration(factory: NOOPMetricsHandler.instance))
                .metrics == nil)

        // The counterparts: a tracer, or a real factory, does get a probe.
        #expect(SessionInstrumentation(tracing: TracingConfiguration(tracer: InMemoryTracer()), metrics: MetricsConfiguration()).begin(request) != nil)
        #expect(SessionInstrumentation(tracing: TracingConfiguration(), metrics: MetricsConfiguration(factory: TestMetrics())).begin(request) != nil)
    }
}
