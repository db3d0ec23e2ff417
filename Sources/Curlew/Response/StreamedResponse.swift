import Foundation
import HTTPTypes

/// A response whose head has arrived and whose body is still streaming; see
/// ``DataRequest/streamedResponse()``.
public struct StreamedResponse: Sendable {
    /// The response head (status and header fields).
    public let head: HTTPResponse
    /// The body, with backpressure. Iterate it once; dropping it before the end cancels the
    /// transfer.
    public let body: ByteStream
    /// The URL the request was sent to (before redirects).
    public let url: URL?

    /// The status of the response.
    public var status: HTTPResponse.Status { head.status }
}
