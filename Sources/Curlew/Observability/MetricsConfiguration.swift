import CoreMetrics

/// How a session reports metrics with swift-metrics; the names and dimensions are listed in
/// the README ("Tracing and metrics").
///
/// By default the factory is the process's (`MetricsSystem.factory`), read once when the
/// session is made: bootstrap the metrics system before making sessions. While that is the
/// no-op default, the session makes no metric objects and its requests record nothing.
public struct MetricsConfiguration: Sendable {
    /// Whether the session reports metrics at all.
    public var isEnabled = true
    /// The factory for this session's metrics, instead of the process's (tests use one per
    /// session, since the process's can be bootstrapped only once). Nil uses
    /// `MetricsSystem.factory` as it is when the session is made.
    public var factory: (any MetricsFactory)?

    /// The defaults: the process's factory.
    public init() {}

    /// Metrics made by `factory` rather than the process's.
    public init(factory: any MetricsFactory) {
        self.factory = factory
    }
}
