import Foundation
import HTTPTypes

/// A completed response: head, serialized value, metrics and redirect history.
public struct Response<Value: Sendable>: Sendable {
    /// The request as it was last sent (after adapters and redirects).
    public let request: OutgoingRequest
    /// The URL that gave the final response.
    public let url: URL
    /// The final response head.
    public var head: HTTPResponse { responseHead.response }
    /// The head as the transfer kept it: built on first access (see ``ResponseHead``).
    let responseHead: ResponseHead
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

    /// The final status code, read without building the head.
    var statusCode: Int { responseHead.statusCode }

    /// Creates a response; public so that custom serializers and tests can build one.
    public init(
        request: OutgoingRequest, url: URL, head: HTTPResponse, value: Value,
        metrics: TransferMetrics, redirects: [RedirectHop] = [], attempts: Int = 1
    ) {
        self.init(
            request: request, url: url, responseHead: ResponseHead(head), value: value, metrics: metrics,
            redirects: redirects, attempts: attempts)
    }

    /// A response whose head is built on first access.
    init(
        request: OutgoingRequest, url: URL, responseHead: ResponseHead, value: Value,
        metrics: TransferMetrics, redirects: [RedirectHop] = [], attempts: Int = 1
    ) {
        self.request = request
        self.url = url
        self.responseHead = responseHead
        self.value = value
        self.metrics = metrics
        self.redirects = redirects
        self.attempts = attempts
    }

    /// The same response carrying another value.
    public func map<T: Sendable>(_ transform: (Value) throws -> T) rethrows -> Response<T> {
        Response<T>(
            request: request, url: url, responseHead: responseHead, value: try transform(value), metrics: metrics,
            redirects: redirects, attempts: attempts)
    }
}
