import Foundation

/// Changes a request before each attempt, for example to add a token.
///
/// Adapters run again before every attempt, so a retried request picks up a refreshed
/// credential. They run in order — the session's first, then the request's own — and the
/// first one that throws stops the chain and fails the attempt.
public protocol RequestAdapter: Sendable {
    /// Returns the request to send. Throwing stops the chain and fails the attempt.
    func adapt(_ request: OutgoingRequest, for session: Session) async throws -> OutgoingRequest
}

/// Decides whether a failed attempt is tried again.
///
/// Retriers are consulted once per failed attempt: after a transport error, a failed adapter,
/// a response interceptor that threw, a validation failure, or a serializer failure. They run
/// in order until one decides (returns anything but ``RetryResult/doNotRetry``).
public protocol RequestRetrier: Sendable {
    /// Called once per failed attempt.
    /// - Parameters:
    ///   - request: the request as the adapters made it for the failed attempt (before redirects).
    ///   - session: the session that sent it.
    ///   - error: why the attempt failed.
    ///   - context: the attempt that failed (from 1), and when it and the first one started,
    ///     for decisions that need the time spent so far, as ``RetryPolicy``'s deadline does.
    func retry(_ request: OutgoingRequest, for session: Session, dueTo error: CurlewError, context: RetryContext) async
        -> RetryResult
}

/// Both an adapter and a retrier; each side defaults to doing nothing.
///
/// A session's interceptors run before a request's own (`request.intercept(with:)`). An
/// interceptor that also conforms to ``ResponseInterceptor`` sees every raw response too.
public protocol RequestInterceptor: RequestAdapter, RequestRetrier {}

extension RequestInterceptor {
    /// Returns the request unchanged.
    public func adapt(_ request: OutgoingRequest, for session: Session) async throws -> OutgoingRequest { request }

    /// Does not retry.
    public func retry(_ request: OutgoingRequest, for session: Session, dueTo error: CurlewError, context: RetryContext)
        async -> RetryResult
    { .doNotRetry }
}

/// What a retrier decided.
public enum RetryResult: Sendable {
    /// Try again now.
    case retry
    /// Try again after a delay. The wait is cancellable: cancelling the request or its task
    /// ends it at once.
    case retryWithDelay(Duration)
    /// No decision: the next retrier is asked; when none decides, the request fails with the
    /// original error.
    case doNotRetry
    /// Give up with this error instead (a ``CurlewError`` is used as is; anything else is
    /// wrapped in a ``CurlewError/Kind/retryLimitExceeded`` error).
    case doNotRetryWithError(any Error & Sendable)
}
