import Tracing

/// How a session's requests are traced with swift-distributed-tracing: one client span per
/// request, named and attributed after the OpenTelemetry HTTP conventions, and the trace
/// context injected into each attempt's header fields.
///
/// By default the tracer is the one bootstrapped with `InstrumentationSystem.bootstrap`, read
/// once when the session is made: bootstrap before making sessions (a tracer bound later, or
/// with `withTracer`, is not seen; set ``tracer`` instead). While that is the no-op default, a
/// request starts no span, injects nothing and allocates nothing. The parent of a request's
/// span is the `ServiceContext.current` of the task that starts the request.
///
/// ```swift
/// var configuration = SessionConfiguration()
/// configuration.tracing.queryRedaction = .all     // `url.full` keeps no query value
/// let session = Session(configuration: configuration)
/// ```
public struct TracingConfiguration: Sendable {
    /// Whether requests are traced at all; false ignores even a bootstrapped tracer.
    public var isEnabled = true
    /// The tracer for this session's requests, instead of the process's (tests use one per
    /// session, since the process's can be bootstrapped only once). Nil uses
    /// `InstrumentationSystem.tracer` as it is when the session is made. This tracer also
    /// injects the trace context.
    public var tracer: (any Tracer)?
    /// Which query values `url.full` shows. Credentials in the URL are always shown as
    /// `REDACTED`, and the fragment (never sent) is left out.
    public var queryRedaction: QueryRedaction = .default

    /// The defaults: the process's tracer, known signature parameters redacted.
    public init() {}

    /// Tracing with `tracer` rather than the process's.
    public init(tracer: any Tracer, queryRedaction: QueryRedaction = .default) {
        self.tracer = tracer
        self.queryRedaction = queryRedaction
    }

    /// What `url.full` shows of a query.
    public enum QueryRedaction: Sendable, Hashable {
        /// The query as sent.
        case disabled
        /// The values of these parameters (by exact name) become `REDACTED`.
        case parameters(Set<String>)
        /// Every value becomes `REDACTED`; the names stay.
        case all

        /// The parameters OpenTelemetry names as secrets: `AWSAccessKeyId`, `Signature`,
        /// `sig` and `X-Goog-Signature`.
        public static let openTelemetrySensitiveParameters: Set<String> = [
            "AWSAccessKeyId", "Signature", "sig", "X-Goog-Signature",
        ]

        /// ``parameters(_:)`` with ``openTelemetrySensitiveParameters``.
        public static var `default`: QueryRedaction { .parameters(openTelemetrySensitiveParameters) }
    }
}
