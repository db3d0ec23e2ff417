import Foundation

/// Changes a request before each attempt, for example to add a token.
public protocol RequestAdapter: Sendable {
    /// Returns the request to send. Throwing stops the chain and fails the attempt.
    func adapt(_ request: OutgoingRequest, for session: Session) async throws -> OutgoingRequest
}

/// Decides whether a failed attempt is tried again.
public protocol RequestRetrier: Sendable {
    /// Called once per failed attempt (transport error, validation failure).
    /// - Parameters:
    ///   - attempt: the attempt that failed, from 1.
    func retry(_ request: OutgoingRequest, for session: Session, dueTo error: CurlewError, attempt: Int) async
        -> RetryResult
}

/// Both an adapter and a retrier; each side defaults to doing nothing.
public protocol RequestInterceptor: RequestAdapter, RequestRetrier {}

extension RequestInterceptor {
    public func adapt(_ request: OutgoingRequest, for session: Session) async throws -> OutgoingRequest { request }

    public func retry(_ request: OutgoingRequest, for session: Session, dueTo error: CurlewError, attempt: Int) async
        -> RetryResult
    { .doNotRetry }
}

/// What a retrier decided.
public enum RetryResult: Sendable {
    /// Try again now.
    case retry
    /// Try again after a delay.
    case retryWithDelay(Duration)
    /// Give up with the original error.
    case doNotRetry
    /// Give up with this error instead.
    case doNotRetryWithError(any Error & Sendable)
}
