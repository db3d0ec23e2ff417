import InMemoryTracing
import Instrumentation
import Tracing

/// An in-memory tracer that propagates the W3C `traceparent` field, as an OpenTelemetry
/// tracer does (`InMemoryTracer` propagates keys of its own). Its IDs are random hex of the
/// W3C lengths.
struct W3CTestTracer: Tracer {
    let recorder = InMemoryTracer(
        idGenerator: .init(nextTraceID: { randomHex(bytes: 16) }, nextSpanID: { randomHex(bytes: 8) }))

    var finishedSpans: [FinishedInMemorySpan] { recorder.finishedSpans }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> InMemorySpan {
        recorder.startSpan(
            operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID, line: line)
    }

    func forceFlush() {}

    func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
    where Inject.Carrier == Carrier {
        guard let span = context.inMemorySpanContext else { return }
        injector.inject("00-\(span.traceID)-\(span.spanID)-01", forKey: "traceparent", into: &carrier)
    }

    func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
    where Extract.Carrier == Carrier {}
}

private func randomHex(bytes: Int) -> String {
    (0..<bytes).map { _ in
        let byte = UInt8.random(in: 0...255)
        return (byte < 16 ? "0" : "") + String(byte, radix: 16)
    }.joined()
}

extension FinishedInMemorySpan {
    /// The attribute named `key`, as a span attribute (comparable with `.int64`, `.string`…).
    func attribute(_ key: String) -> SpanAttribute? {
        attributes[key]?.toSpanAttribute()
    }
}
