import Foundation
import HTTPTypes

/// A completed response: head, serialized value, metrics and redirect history.
public struct Response<Value: Sendable>: Sendable {
    /// The request as it was last sent (after adapters and redirects).
    public let request: OutgoingRequest
    /// The URL that gave the final response.
    public let url: URL
    /// The final response head.
    public let head: HTTPResponse
    /// The serialized value.
    public let value: Value
    /// Timings and sizes, from libcurl.
    public let metrics: TransferMetrics
    /// The redirects followed, in order.
    public let redirects: [RedirectHop]
    /// How many attempts were made, 1 when there was no retry.
    public let attempts: Int

    /// The final HTTP status.
    public var status: HTTPResponse.Status { head.status }

    /// Creates a response; public so that custom serializers and tests can build one.
    public init(
        request: OutgoingRequest, url: URL, head: HTTPResponse, value: Value,
        metrics: TransferMetrics, redirects: [RedirectHop] = [], attempts: Int = 1
    ) {
        self.request = request
        self.url = url
        self.head = head
        self.value = value
        self.metrics = metrics
        self.redirects = redirects
        self.attempts = attempts
    }

    /// The same response carrying another value.
    public func map<T: Sendable>(_ transform: (Value) throws -> T) rethrows -> Response<T> {
        Response<T>(
            request: request, url: url, head: head, value: try transform(value), metrics: metrics,
            redirects: redirects, attempts: attempts)
    }
}
