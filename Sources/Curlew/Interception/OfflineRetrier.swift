import Foundation
import HTTPTypes

/// Retries a request that failed because the machine was offline, once the network is back
/// (Alamofire 5's `OfflineRetrier`, on Linux).
///
/// ```swift
/// let session = Session(interceptors: [OfflineRetrier(maximumWait: .seconds(30)), RetryPolicy.default])
/// ```
///
/// When an attempt fails with a connection-level error (see ``isConnectionFailure``)
/// and the ``ReachabilityMonitor`` says the path is unsatisfied, the retrier waits — at most
/// ``maximumWait`` — for the path to be satisfied again, then asks for an immediate retry. A
/// path that went unsatisfied during the attempt and is already back also gets a retry. When
/// the path was satisfied all along, the failure had another cause, and when the wait passes
/// its limit the network did not return: in both cases the retrier does not decide
/// (``RetryResult/doNotRetry``), so the next retrier (a ``RetryPolicy``) or the original error
/// has its say. Cancelling the request ends the wait at once.
public struct OfflineRetrier: RequestInterceptor {
    /// Decides whether a failed attempt failed for want of a connection.
    public typealias FailurePredicate = @Sendable (OutgoingRequest, CurlewError) -> Bool

    /// The monitor to consult; nil uses the session's (``SessionConfiguration/reachabilityMonitor``,
    /// else ``ReachabilityMonitor/shared()``).
    public var monitor: ReachabilityMonitor?
    /// The longest wait for the network to return, per failed attempt.
    public var maximumWait: Duration
    /// How many times one request is retried by this retrier at most (attempts count from 1,
    /// whoever retried them).
    public var retryLimit: Int
    /// Which failures count as offline; ``isConnectionFailure`` by default.
    public var isOfflineFailure: FailurePredicate

    /// Creates a retrier.
    public init(
        monitor: ReachabilityMonitor? = nil, maximumWait: Duration = .seconds(5), retryLimit: Int = 3,
        isOfflineFailure: @escaping FailurePredicate = OfflineRetrier.isConnectionFailure
    ) {
        self.monitor = monitor
        self.maximumWait = max(.zero, maximumWait)
        self.retryLimit = max(0, retryLimit)
        self.isOfflineFailure = isOfflineFailure
    }

    /// The default predicate: failures before anything reached a server — connection refused
    /// or unreachable, DNS failure, connect timeout, an unreachable proxy — for any method; and
    /// connections lost mid-exchange (closed, reset, idle, too slow) for idempotent methods only,
    /// since the server may have acted on the request.
    public static let isConnectionFailure: FailurePredicate = { request, error in
        switch error.kind {
        case .connectionRefused, .hostNotFound, .connectTimeout:
            return true
        case .proxyFailure:
            return error.curlCode == 5 || error.curlCode == 7
        case .connectionClosedMidBody, .idleTimeout, .tooSlow:
            return RetryPolicy.defaultRetryableMethods.contains(request.method)
        default:
            guard let code = error.curlCode, RetryPolicy.lostConnectionCurlCodes.contains(code),
                error.kind != .malformedResponse
            else { return false }
            return RetryPolicy.defaultRetryableMethods.contains(request.method)
        }
    }

    /// Decides with timing: see the type's description.
    public func retry(_ request: OutgoingRequest, for session: Session, dueTo error: CurlewError, context: RetryContext)
        async -> RetryResult
    {
        guard context.attempt <= retryLimit, isOfflineFailure(request, error) else { return .doNotRetry }
        guard let reachability = await resolvedMonitor(for: session) else { return .doNotRetry }
        if reachability.currentPath.isSatisfied {
            return reachability.broadcast.wasUnsatisfied(since: context.attemptStart) ? .retry : .doNotRetry
        }
        if case .satisfied = await reachability.waitForSatisfiedPath(within: maximumWait) { return .retry }
        return .doNotRetry
    }

    private func resolvedMonitor(for session: Session) async -> ReachabilityMonitor? {
        if let monitor { return monitor }
        return await session.reachabilityMonitor()
    }
}
