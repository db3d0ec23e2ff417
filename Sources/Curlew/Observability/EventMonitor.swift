import Foundation
import HTTPTypes

/// Sees what every request of a session does: put monitors in
/// ``SessionConfiguration/eventMonitors``.
///
/// Every hook has an empty default, so a monitor implements only what it needs. Hooks are
/// called synchronously from the request's pipeline task (never from the session's I/O
/// thread), in this order for each attempt: waiting for connectivity (only when it waits), adapted, started, response head received, metrics
/// gathered; then either retried (and the next attempt) or finished; then serialized, once per
/// serialization asked for. `requestCreated` comes first, when the request is made. Keep hooks
/// quick: the request waits for them.
///
/// Streamed requests (`bytes`) report up to the response head; downloads report everything
/// but serialization.
public protocol EventMonitor: Sendable {
    /// A request was made; `request` is nil when its arguments were invalid (the error then
    /// arrives in `didFinish`).
    func requestCreated(_ id: RequestID, request: OutgoingRequest?)
    /// The adapters of `attempt` produced `adapted` from `original`.
    func request(_ id: RequestID, didAdapt original: OutgoingRequest, to adapted: OutgoingRequest, attempt: Int)
    /// Attempt `attempt` waits for a satisfied network path before it starts, because the
    /// request asked to (``RequestOptions/waitsForConnectivity``) and `path` is unsatisfied.
    func request(_ id: RequestID, isWaitingForConnectivity request: OutgoingRequest, path: NetworkPath, attempt: Int)
    /// Attempt `attempt` was handed to the session's I/O thread.
    func request(_ id: RequestID, didStart request: OutgoingRequest, attempt: Int)
    /// The final response head of `attempt` arrived (after redirects).
    func request(_ id: RequestID, didReceive head: HTTPResponse, for request: OutgoingRequest, attempt: Int)
    /// Attempt `attempt`'s transfer ended with these timings and sizes.
    func request(_ id: RequestID, didGather metrics: TransferMetrics, for request: OutgoingRequest, attempt: Int)
    /// Attempt `attempt` failed with `error`, and the request will be tried again after `delay`.
    func request(_ id: RequestID, willRetry request: OutgoingRequest, after error: CurlewError, attempt: Int, delay: Duration)
    /// The request finished after `attempts` attempts; `request` is the last one sent (nil when
    /// none could be built).
    func request(
        _ id: RequestID, didFinish request: OutgoingRequest?, with result: Result<TransferCompletion, CurlewError>,
        attempts: Int)
    /// A serializer turned the response into a value, or failed.
    func request<Value: Sendable>(_ id: RequestID, didSerialize result: Result<Response<Value>, CurlewError>)
}

extension EventMonitor {
    /// Does nothing.
    public func requestCreated(_ id: RequestID, request: OutgoingRequest?) {}
    /// Does nothing.
    public func request(_ id: RequestID, didAdapt original: OutgoingRequest, to adapted: OutgoingRequest, attempt: Int) {}
    /// Does nothing.
    public func request(
        _ id: RequestID, isWaitingForConnectivity request: OutgoingRequest, path: NetworkPath, attempt: Int
    ) {}
    /// Does nothing.
    public func request(_ id: RequestID, didStart request: OutgoingRequest, attempt: Int) {}
    /// Does nothing.
    public func request(_ id: RequestID, didReceive head: HTTPResponse, for request: OutgoingRequest, attempt: Int) {}
    /// Does nothing.
    public func request(_ id: RequestID, didGather metrics: TransferMetrics, for request: OutgoingRequest, attempt: Int) {}
    /// Does nothing.
    public func request(
        _ id: RequestID, willRetry request: OutgoingRequest, after error: CurlewError, attempt: Int, delay: Duration
    ) {}
    /// Does nothing.
    public func request(
        _ id: RequestID, didFinish request: OutgoingRequest?, with result: Result<TransferCompletion, CurlewError>,
        attempts: Int
    ) {}
    /// Does nothing.
    public func request<Value: Sendable>(_ id: RequestID, didSerialize result: Result<Response<Value>, CurlewError>) {}
}
