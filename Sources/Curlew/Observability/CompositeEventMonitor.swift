import Foundation
import HTTPTypes

/// Several monitors as one: every hook is forwarded to each, in order.
public struct CompositeEventMonitor: EventMonitor {
    /// The monitors, in the order they are called.
    let monitors: [any EventMonitor]

    /// Combines `monitors`.
    public init(_ monitors: [any EventMonitor]) {
        self.monitors = monitors
    }

    /// Forwards to every monitor, in order.
    public func requestCreated(_ id: RequestID, request: OutgoingRequest?) {
        for monitor in monitors { monitor.requestCreated(id, request: request) }
    }

    /// Forwards to every monitor, in order.
    public func request(_ id: RequestID, didAdapt original: OutgoingRequest, to adapted: OutgoingRequest, attempt: Int) {
        for monitor in monitors { monitor.request(id, didAdapt: original, to: adapted, attempt: attempt) }
    }

    /// Forwards to every monitor, in order.
    public func request(
        _ id: RequestID, isWaitingForConnectivity request: OutgoingRequest, path: NetworkPath, attempt: Int
    ) {
        for monitor in monitors { monitor.request(id, isWaitingForConnectivity: request, path: path, attempt: attempt) }
    }

    /// Forwards to every monitor, in order.
    public func request(_ id: RequestID, didStart request: OutgoingRequest, attempt: Int) {
        for monitor in monitors { monitor.request(id, didStart: request, attempt: attempt) }
    }

    /// Forwards to every monitor, in order.
    public func request(_ id: RequestID, didReceive head: HTTPResponse, for request: OutgoingRequest, attempt: Int) {
        for monitor in monitors { monitor.request(id, didReceive: head, for: request, attempt: attempt) }
    }

    /// Forwards to every monitor, in order.
    public func request(_ id: RequestID, didGather metrics: TransferMetrics, for request: OutgoingRequest, attempt: Int) {
        for monitor in monitors { monitor.request(id, didGather: metrics, for: request, attempt: attempt) }
    }

    /// Forwards to every monitor, in order.
    public func request(
        _ id: RequestID, willRetry request: OutgoingRequest, after error: CurlewError, attempt: Int, delay: Duration
    ) {
        for monitor in monitors { monitor.request(id, willRetry: request, after: error, attempt: attempt, delay: delay) }
    }

    /// Forwards to every monitor, in order.
    public func request(
        _ id: RequestID, didFinish request: OutgoingRequest?, with result: Result<TransferCompletion, CurlewError>,
        attempts: Int
    ) {
        for monitor in monitors { monitor.request(id, didFinish: request, with: result, attempts: attempts) }
    }

    /// Forwards to every monitor, in order.
    public func request<Value: Sendable>(_ id: RequestID, didSerialize result: Result<Response<Value>, CurlewError>) {
        for monitor in monitors { monitor.request(id, didSerialize: result) }
    }
}
