import CoreMetrics
import Synchronization

/// A session's swift-metrics instruments. Made only when the session's factory is not the
/// no-op one; the metric objects are made once per combination of dimensions and kept, so a
/// request looks them up under one lock instead of asking the factory.
///
/// Names and dimensions (documented in the README, "Tracing and metrics"):
/// - `curlew.client.requests` (counter): `method`, `status_class` (`2xx`…, or `error`).
/// - `curlew.client.errors` (counter): `kind`, the ``CurlewError/Kind``.
/// - `curlew.client.retries` (counter): attempts after the first.
/// - `curlew.client.connections` (counter): `state`, `opened` or `reused`.
/// - `http.client.request.duration` (timer): `http.request.method`,
///   `http.response.status_code` (when a response arrived), `error.type` (when it failed).
/// - `http.client.active_requests` (meter): requests in flight.
/// - `http.client.request.body.size`, `http.client.response.body.size` (recorders, bytes on
///   the wire): `http.request.method`.
final class ClientMetrics: Sendable {
    static let requestsLabel = "curlew.client.requests"
    static let errorsLabel = "curlew.client.errors"
    static let retriesLabel = "curlew.client.retries"
    static let connectionsLabel = "curlew.client.connections"
    static let durationLabel = "http.client.request.duration"
    static let activeRequestsLabel = "http.client.active_requests"
    static let requestBodySizeLabel = "http.client.request.body.size"
    static let responseBodySizeLabel = "http.client.response.body.size"

    /// What a request ended with, as the dimensions of its count and duration.
    struct Ending: Hashable {
        /// The method, as OpenTelemetry spells it (`_OTHER` for a method it does not know).
        var method: String
        /// The final status; 0 when no response arrived.
        var status: Int
        /// The `error.type`, when the request failed.
        var errorType: String?
    }

    private struct Ended {
        let requests: Counter
        let duration: CoreMetrics.Timer
    }

    private struct Sizes {
        let sent: Recorder
        let received: Recorder
    }

    private struct Cache {
        var ended: [Ending: Ended] = [:]
        var sizes: [String: Sizes] = [:]
        var errors: [String: Counter] = [:]
    }

    private let factory: any MetricsFactory
    private let active: Meter
    private let retries: Counter
    private let connectionsOpened: Counter
    private let connectionsReused: Counter
    private let cache = Mutex(Cache())

    /// Nil for the no-op factory, so that a session without metrics makes nothing.
    init?(factory: any MetricsFactory) {
        guard !(factory is NOOPMetricsHandler) else { return nil }
        self.factory = factory
        active = Meter(label: Self.activeRequestsLabel, factory: factory)
        retries = Counter(label: Self.retriesLabel, factory: factory)
        connectionsOpened = Counter(label: Self.connectionsLabel, dimensions: [("state", "opened")], factory: factory)
        connectionsReused = Counter(label: Self.connectionsLabel, dimensions: [("state", "reused")], factory: factory)
    }

    func requestStarted() {
        active.increment()
    }

    func retried() {
        retries.increment()
    }

    /// One transfer that reached the server: its connection and its bytes.
    func transferred(_ metrics: TransferMetrics, method: String) {
        (metrics.connectionReused ? connectionsReused : connectionsOpened).increment()
        let sizes = cache.withLock { cache in
            if let sizes = cache.sizes[method] { return sizes }
            let dimensions = [("http.request.method", method)]
            let sizes = Sizes(
                sent: Recorder(label: Self.requestBodySizeLabel, dimensions: dimensions, factory: factory),
                received: Recorder(label: Self.responseBodySizeLabel, dimensions: dimensions, factory: factory))
            cache.sizes[method] = sizes
            return sizes
        }
        sizes.sent.record(metrics.bytesSent)
        sizes.received.record(metrics.bytesReceived)
    }

    /// A request ended after `nanoseconds`, with `kind` when it threw.
    func requestEnded(_ ending: Ending, nanoseconds: Int64, kind: CurlewError.Kind?) {
        active.decrement()
        let (ended, error) = cache.withLock { cache -> (Ended, Counter?) in
            let ended: Ended
            if let known = cache.ended[ending] {
                ended = known
            } else {
                ended = make(ending)
                cache.ended[ending] = ended
            }
            guard let kind else { return (ended, nil) }
            let name = kind.description
            if let counter = cache.errors[name] { return (ended, counter) }
            let counter = Counter(label: Self.errorsLabel, dimensions: [("kind", name)], factory: factory)
            cache.errors[name] = counter
            return (ended, counter)
        }
        ended.requests.increment()
        ended.duration.recordNanoseconds(nanoseconds)
        error?.increment()
    }

    private func make(_ ending: Ending) -> Ended {
        let statusClass = ending.status > 0 ? "\(ending.status / 100)xx" : "error"
        var durationDimensions = [("http.request.method", ending.method)]
        if ending.status > 0 { durationDimensions.append(("http.response.status_code", String(ending.status))) }
        if let errorType = ending.errorType { durationDimensions.append(("error.type", errorType)) }
        return Ended(
            requests: Counter(
                label: Self.requestsLabel, dimensions: [("method", ending.method), ("status_class", statusClass)],
                factory: factory),
            duration: CoreMetrics.Timer(
                label: Self.durationLabel, dimensions: durationDimensions, preferredDisplayUnit: .seconds,
                factory: factory))
    }
}
