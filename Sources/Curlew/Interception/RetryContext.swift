/// What a retrier knows about a failed attempt besides the request and the error.
public struct RetryContext: Sendable {
    /// The attempt that failed, from 1.
    public let attempt: Int
    /// When the first attempt started (before its adapters ran).
    public let firstAttemptStart: ContinuousClock.Instant
    /// When the failed attempt started (before its adapters ran).
    public let attemptStart: ContinuousClock.Instant

    /// Creates a context; public so that retriers can be tested on their own.
    public init(attempt: Int, firstAttemptStart: ContinuousClock.Instant, attemptStart: ContinuousClock.Instant) {
        self.attempt = attempt
        self.firstAttemptStart = firstAttemptStart
        self.attemptStart = attemptStart
    }

    /// The time spent since the first attempt started.
    public var elapsed: Duration { ContinuousClock.now - firstAttemptStart }
}
