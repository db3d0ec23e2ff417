import CoreMetrics
import Foundation
import Tracing

/// What a session needs to trace and measure its requests, worked out once when the session
/// is made. ``begin(_:)`` returns nil — and nothing is allocated — when there is neither a
/// tracer nor a metrics factory, which is the default.
struct SessionInstrumentation: Sendable {
    let tracing: TracingConfiguration
    /// Nil when metrics are off or the factory is the no-op one.
    let metrics: ClientMetrics?

    init(tracing: TracingConfiguration, metrics: MetricsConfiguration) {
        self.tracing = tracing
        self.metrics = metrics.isEnabled ? ClientMetrics(factory: metrics.factory ?? MetricsSystem.factory) : nil
    }

    /// The probe of one run of `request`, started now; nil when nothing observes requests.
    ///
    /// Without a session tracer this reads the process's instrument (a task-local read and a
    /// read lock) and compares its type with the no-op one; only a real instrument goes further.
    func begin(_ request: OutgoingRequest) -> RequestProbe? {
        var instrument: (any Instrument)?
        var span: (any Span)?
        let method = RequestProbe.otelMethod(request.method)
        if tracing.isEnabled {
            if let tracer = tracing.tracer {
                instrument = tracer
                span = startSpan(tracer, request: request, method: method)
            } else {
                let global = InstrumentationSystem.instrument
                if !(global is NoOpInstrument) {
                    instrument = global
                    let tracer = InstrumentationSystem.tracer
                    if !(tracer is NoOpTracer) { span = startSpan(tracer, request: request, method: method) }
                }
            }
        }
        guard instrument != nil || metrics != nil else { return nil }
        return RequestProbe(
            span: span, instrument: instrument, context: span?.context ?? ServiceContext.current ?? .topLevel,
            metrics: metrics, method: method)
    }

    /// A client span for `request`, child of the task's current context.
    private func startSpan(_ tracer: any Tracer, request: OutgoingRequest, method: String) -> any Span {
        let span = tracer.startSpan(
            method == RequestProbe.otherMethod ? "HTTP" : method, context: ServiceContext.current ?? .topLevel,
            ofKind: .client)
        let url = request.url
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        span.updateAttributes { attributes in
            attributes["http.request.method"] = method
            if method == RequestProbe.otherMethod {
                attributes["http.request.method_original"] = request.method.rawValue
            }
            attributes["url.full"] = TracedURL.full(url, redaction: tracing.queryRedaction)
            if let host = url.host { attributes["server.address"] = host }
            attributes["server.port"] = port
        }
        return span
    }
}
