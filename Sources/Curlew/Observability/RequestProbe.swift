import Foundation
import HTTPTypes
import Synchronization
import Tracing

/// Traces and measures one run of a request: its span (if a tracer is active), the trace
/// context it injects into each attempt, and its metrics (if the session has any). Exists only
/// when something observes requests (see ``SessionInstrumentation/begin(_:)``).
///
/// ``finish(_:)`` may be reached from two places for a stream (the end of its transfer, or a
/// failure before the body); the first call wins, so the span is ended exactly once.
final class RequestProbe: Sendable {
    /// The `http.request.method` of a method OpenTelemetry does not list.
    static let otherMethod = "_OTHER"

    private static let knownMethods: Set<String> = [
        "CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE", "QUERY",
    ]

    /// The method as `http.request.method` and the metrics name it.
    static func otelMethod(_ method: HTTPRequest.Method) -> String {
        knownMethods.contains(method.rawValue) ? method.rawValue : otherMethod
    }

    private let span: (any Span)?
    /// The instrument that injects ``context`` into each attempt's header fields.
    private let instrument: (any Instrument)?
    /// The span's context, or the task's when an instrument propagates without tracing.
    private let context: ServiceContext
    private let metrics: ClientMetrics?
    private let method: String
    private let start = ContinuousClock.now
    private let finished = Atomic<Bool>(false)

    init(
        span: (any Span)?, instrument: (any Instrument)?, context: ServiceContext, metrics: ClientMetrics?,
        method: String
    ) {
        self.span = span
        self.instrument = instrument
        self.context = context
        self.metrics = metrics
        self.method = method
        metrics?.requestStarted()
    }

    /// Attempt `attempt` (from 1) is about to be adapted and sent: the trace context goes into
    /// its header fields, and a resend is counted.
    func attemptStarting(_ attempt: Int, request: inout OutgoingRequest) {
        if attempt > 1 {
            span?.attributes["http.request.resend_count"] = attempt - 1
            metrics?.retried()
        }
        instrument?.inject(context, into: &request.headerFields, using: HTTPFieldsInjector())
    }

    /// A transfer reached the server and ended with these metrics (every attempt that got a
    /// response, also the ones retried).
    func transferred(_ transferMetrics: TransferMetrics) {
        metrics?.transferred(transferMetrics, method: method)
    }

    /// The request ended: the span gets the response's attributes and its status, and ends.
    /// Only the first call counts.
    func finish(_ result: Result<TransferOutcome, CurlewError>) {
        guard finished.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        let head: HTTPResponse?
        let error: CurlewError?
        var protocolVersion: HTTPVersion?
        var peerAddress: String?
        var peerPort: Int?
        switch result {
        case .success(let outcome):
            head = outcome.head
            error = nil
            protocolVersion = outcome.metrics.httpVersion
            peerAddress = outcome.metrics.remoteAddress
            peerPort = outcome.metrics.remotePort
        case .failure(let failure):
            head = failure.responseHead
            error = failure
        }
        let status = head?.status.code ?? 0
        // OpenTelemetry: the status code when the response is an error, else the error's kind.
        let errorType = status >= 400 ? String(status) : error.map { $0.kind.description }
        if let span {
            span.updateAttributes { attributes in
                if status > 0 { attributes["http.response.status_code"] = status }
                if let errorType { attributes["error.type"] = errorType }
                if let version = protocolVersion?.openTelemetryName { attributes["network.protocol.version"] = version }
                if let peerAddress { attributes["network.peer.address"] = peerAddress }
                if let peerPort { attributes["network.peer.port"] = peerPort }
            }
            if let error { span.recordError(error) }
            if errorType != nil { span.setStatus(SpanStatus(code: .error, message: error?.kind.description)) }
            span.end()
        }
        if let metrics {
            let elapsed = ContinuousClock.now - start
            let nanoseconds = elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
            metrics.requestEnded(
                ClientMetrics.Ending(method: method, status: status, errorType: errorType), nanoseconds: nanoseconds,
                kind: error?.kind)
        }
    }
}

extension HTTPVersion {
    /// `network.protocol.version`: `1.0`, `1.1`, `2`, `3`; nil when unknown.
    var openTelemetryName: String? {
        switch self {
        case .http1_0: "1.0"
        case .http1_1: "1.1"
        case .http2: "2"
        case .http3: "3"
        case .unknown: nil
        }
    }
}
