import Foundation
import HTTPTypes

/// Retries failed attempts with exponential backoff and full jitter.
///
/// ```swift
/// let session = Session(interceptors: [RetryPolicy.default])
/// var patient = RetryPolicy(retryLimit: 5, deadline: .seconds(20))
/// patient.retryableStatusCodes.insert(409)
/// ```
///
/// An attempt is retried when its method is idempotent (GET, HEAD, OPTIONS, PUT, DELETE,
/// TRACE by default), and it failed with a retryable status (408, 429, 500, 502, 503, 504) or
/// a transient transport error (connection refused, closed or reset; connect, idle and total
/// timeouts; a transfer below its minimum speed; DNS failure).
///
/// The delay before retry *n* is a random duration between zero and
/// `min(maximumDelay, backoffScale × backoffBase^(n-1))` ("full jitter"), unless the response
/// says `Retry-After` (delta-seconds or an HTTP-date), which is then honoured exactly. A
/// `Retry-After` longer than ``maximumDelay`` makes the policy give up rather than retry early.
///
/// After ``retryLimit`` retries, or when the next delay would pass the ``deadline``, the
/// request fails with ``CurlewError/Kind/retryLimitExceeded``; that error keeps the status,
/// head and body of the last attempt, and the last attempt's error as `underlying`.
/// Errors the policy does not retry pass through unchanged (the next retrier is asked);
/// ``CurlewError/Kind/authenticationFailed`` errors are never retried by the policy.
public struct RetryPolicy: RequestInterceptor {
    /// How random the backoff is.
    public enum Jitter: Sendable, Hashable {
        /// A uniformly random delay between zero and the exponential bound (the default).
        case full
        /// Exactly the exponential bound; predictable, but clients retry in lockstep.
        case disabled
    }

    /// The methods retried by default: the idempotent ones of RFC 9110.
    public static let defaultRetryableMethods: Set<HTTPRequest.Method> = [.get, .head, .options, .put, .delete, .trace]
    /// The statuses retried by default.
    public static let defaultRetryableStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504]
    /// The transport error kinds retried by default.
    public static let defaultRetryableErrorKinds: Set<CurlewError.Kind> = [
        .connectionRefused, .connectionClosedMidBody, .connectTimeout, .idleTimeout, .tooSlow, .totalTimeout,
        .hostNotFound,
    ]
    /// The libcurl codes of a connection lost without a complete response: 52 (nothing
    /// received), 55 (send failed) and 56 (receive failed, for example a reset).
    static let lostConnectionCurlCodes: Set<Int> = [52, 55, 56]

    /// How many times a request is retried (so at most `retryLimit + 1` attempts).
    public var retryLimit: Int
    /// The base of the exponential backoff.
    public var backoffBase: Double
    /// The delay bound of the first retry; retry *n* is bounded by `backoffScale × backoffBase^(n-1)`.
    public var backoffScale: Duration
    /// The cap on any delay; also the longest `Retry-After` the policy is willing to honour.
    public var maximumDelay: Duration
    /// The most time from the start of the first attempt to the start of the last; nil for none.
    public var deadline: Duration?
    /// The methods that may be retried.
    public var retryableMethods: Set<HTTPRequest.Method>
    /// The statuses that are retried.
    public var retryableStatusCodes: Set<Int>
    /// The error kinds that are retried.
    public var retryableErrorKinds: Set<CurlewError.Kind>
    /// Whether a connection lost mid-exchange (libcurl codes 52, 55 and 56) is retried.
    public var retriesLostConnections: Bool
    /// Whether `Retry-After` replaces the computed backoff.
    public var honorsRetryAfter: Bool
    /// How random the backoff is.
    public var jitter: Jitter
    /// Whether a download that failed part way is retried by resuming it — `Range` from the
    /// bytes already on disk, with `If-Range` — rather than from the start, when it gave
    /// ``CurlewError/downloadResumeData``. Off by default.
    public var resumesDownloads = false

    /// Creates a policy; every argument has a sensible default.
    public init(
        retryLimit: Int = 2, backoffBase: Double = 2, backoffScale: Duration = .milliseconds(500),
        maximumDelay: Duration = .seconds(30), deadline: Duration? = nil,
        retryableMethods: Set<HTTPRequest.Method> = RetryPolicy.defaultRetryableMethods,
        retryableStatusCodes: Set<Int> = RetryPolicy.defaultRetryableStatusCodes,
        retryableErrorKinds: Set<CurlewError.Kind> = RetryPolicy.defaultRetryableErrorKinds,
        retriesLostConnections: Bool = true, honorsRetryAfter: Bool = true, jitter: Jitter = .full
    ) {
        self.retryLimit = max(0, retryLimit)
        self.backoffBase = backoffBase.isFinite ? max(1, backoffBase) : 2
        self.backoffScale = max(.zero, backoffScale)
        self.maximumDelay = max(.zero, maximumDelay)
        self.deadline = deadline
        self.retryableMethods = retryableMethods
        self.retryableStatusCodes = retryableStatusCodes
        self.retryableErrorKinds = retryableErrorKinds
        self.retriesLostConnections = retriesLostConnections
        self.honorsRetryAfter = honorsRetryAfter
        self.jitter = jitter
    }

    /// Two retries, 0.5 s scale, base 2, 30 s cap, no deadline.
    public static let `default` = RetryPolicy()

    /// A policy that retries only connections lost mid-exchange (closed early or reset), for
    /// idempotent methods; statuses and other errors are left to the next retrier.
    public static func connectionLostOnly(
        retryLimit: Int = 2, backoffScale: Duration = .milliseconds(200), maximumDelay: Duration = .seconds(5)
    ) -> RetryPolicy {
        RetryPolicy(
            retryLimit: retryLimit, backoffScale: backoffScale, maximumDelay: maximumDelay, retryableStatusCodes: [],
            retryableErrorKinds: [.connectionClosedMidBody], retriesLostConnections: true, honorsRetryAfter: false)
    }

    // MARK: Deciding

    /// Whether this policy retries `error` for `request` at all, ignoring limits.
    func isRetryable(_ request: OutgoingRequest, error: CurlewError) -> Bool {
        // An authentication failure carries the token endpoint's status, not the request's.
        guard retryableMethods.contains(request.method), error.kind != .authenticationFailed else { return false }
        if let status = error.status, retryableStatusCodes.contains(status.code) { return true }
        if retryableErrorKinds.contains(error.kind) { return true }
        // Bad chunked encoding (a malformed reply with curl 56) is the server's fault, and a
        // proxy's refusal of a tunnel (curl 56 too) its answer: neither is a lost connection.
        if retriesLostConnections, let code = error.curlCode, Self.lostConnectionCurlCodes.contains(code),
            !(code == 56 && (error.kind == .malformedResponse || error.kind == .proxyFailure))
        {
            return true
        }
        return false
    }

    /// Decides about a failed attempt: retry after a delay, or give up.
    public func retry(_ request: OutgoingRequest, for session: Session, dueTo error: CurlewError, context: RetryContext)
        async -> RetryResult
    {
        decide(request, error: error, attempt: context.attempt, elapsed: context.elapsed)
    }

    /// The decision for a failed attempt, after `elapsed` since the first one started.
    func decide(_ request: OutgoingRequest, error: CurlewError, attempt: Int, elapsed: Duration?, now: Date = Date())
        -> RetryResult
    {
        guard isRetryable(request, error: error) else { return .doNotRetry }
        guard attempt <= retryLimit else {
            return .doNotRetryWithError(giveUp(error, "gave up after \(attempt) attempts"))
        }
        var generator = SystemRandomNumberGenerator()
        var delay = backoff(forAttempt: attempt, using: &generator)
        if honorsRetryAfter, let requested = Self.retryAfter(in: error.responseHead, now: now) {
            guard requested <= maximumDelay else {
                return .doNotRetryWithError(giveUp(
                    error, "the server asked to retry after \(requested), more than the maximum delay of \(maximumDelay)"))
            }
            delay = requested
        }
        if let deadline, let elapsed, elapsed + delay > deadline {
            return .doNotRetryWithError(giveUp(
                error, "gave up after \(attempt) attempts: waiting \(delay) more would pass the deadline of \(deadline)"))
        }
        return delay > .zero ? .retryWithDelay(delay) : .retry
    }

    private func giveUp(_ error: CurlewError, _ reason: String) -> CurlewError {
        CurlewError(
            .retryLimitExceeded, "\(reason); last error: \(error.kind): \(error.message)", url: error.url,
            curlCode: error.curlCode, curlMessage: error.curlMessage, responseHead: error.responseHead,
            responseBody: error.responseBody, underlying: error)
    }

    // MARK: Backoff

    /// The largest delay before the retry that follows failed attempt `attempt` (from 1):
    /// `min(maximumDelay, backoffScale × backoffBase^(attempt-1))`.
    func backoffBound(forAttempt attempt: Int) -> Duration {
        let multiplier = pow(backoffBase, Double(max(0, attempt - 1)))
        let bound = backoffScale.inSeconds * multiplier
        guard multiplier.isFinite, bound.isFinite, bound < maximumDelay.inSeconds else { return maximumDelay }
        return backoffScale * multiplier
    }

    /// The delay before the retry that follows failed attempt `attempt`: with full jitter, a
    /// uniformly random duration in `0...backoffBound(forAttempt:)`.
    func backoff(forAttempt attempt: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        let bound = backoffBound(forAttempt: attempt)
        switch jitter {
        case .disabled: return bound
        case .full:
            let seconds = bound.inSeconds
            guard seconds > 0 else { return .zero }
            return .seconds(Double.random(in: 0...seconds, using: &generator))
        }
    }

    // MARK: Retry-After

    /// The wait a `Retry-After` field asks for: delta-seconds, or an HTTP-date (a date in the
    /// past means no wait). Nil when the head has no valid `Retry-After`.
    static func retryAfter(in head: HTTPResponse?, now: Date = Date()) -> Duration? {
        guard let value = head?.headerFields[.retryAfter]?.trimmingCharacters(in: .whitespaces), !value.isEmpty
        else { return nil }
        if value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // A number too large for Int is still a (very long) wait.
            return .seconds(Int64(value) ?? .max)
        }
        guard let date = CookieDateParser.parse(value) else { return nil }
        let seconds = date.timeIntervalSince(now)
        return seconds > 0 ? .seconds(seconds) : .zero
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
