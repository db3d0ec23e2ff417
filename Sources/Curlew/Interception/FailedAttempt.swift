import Foundation
import HTTPTypes

/// An attempt whose transfer failed, as a ``ResponseInterceptor`` sees it: the request that
/// was sent and the error, with whatever part of a response had arrived.
public struct FailedAttempt: Sendable {
    /// The request as the adapters made it for this attempt (before redirects).
    public let request: OutgoingRequest
    /// Why the attempt failed, as the interceptors before this one left it: one of them may
    /// have set its ``CurlewError/underlying`` to the app's own error.
    public let error: CurlewError
    /// The attempt, from 1.
    public let attempt: Int

    /// Creates a failed attempt; public so that interceptors can be tested on their own.
    public init(request: OutgoingRequest, error: CurlewError, attempt: Int = 1) {
        self.request = request
        self.error = error
        self.attempt = attempt
    }

    /// The response head, when one arrived before the failure (a body too large, a connection
    /// closed mid-body…).
    public var responseHead: HTTPResponse? { error.responseHead }

    /// The part of the body that was collected, when there is one.
    public var responseBody: Data? { error.responseBody }
}
