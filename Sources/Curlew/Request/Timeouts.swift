/// Connect, total and idle timeouts, and a minimum speed. A `nil` field means "no limit" at the session level and
/// "use the session's value" in ``RequestOptions``.
///
/// Every limit that is set must be positive: a zero or negative duration fails the request,
/// when it is consumed, with ``CurlewError/Kind/invalidRequest`` (libcurl would otherwise read
/// zero as "its default" and a tiny value as one millisecond).
public struct Timeouts: Sendable, Hashable {
    /// The longest time to establish a connection, TLS included.
    public var connect: Duration?
    /// The longest time for the whole transfer, redirects included.
    public var total: Duration?
    /// The longest time with no bytes moving in either direction, once the request has been
    /// sent; past it the transfer fails with ``CurlewError/Kind/idleTimeout``.
    ///
    /// One rule for the head and the body: activity is every piece of the response libcurl
    /// hands to Curlew (each complete header line, each chunk of body) and every piece of the
    /// request body it takes. libcurl parses a head line by line and reports nothing of a line
    /// until its end, so a single header line that takes longer than this limit to arrive
    /// times out even if its bytes trickle in; every other pause between two bytes longer than
    /// the limit does too, in the head and in the body alike. A transfer paused because its
    /// consumer is behind is not idle. To stop servers that send just often enough never to
    /// be idle, set ``minimumSpeed``.
    public var idle: Duration?
    /// The lowest average speed over a window; nil (the default) means no floor. See
    /// ``MinimumSpeed``.
    public var minimumSpeed: MinimumSpeed?

    /// Creates timeouts.
    public init(
        connect: Duration? = nil, total: Duration? = nil, idle: Duration? = nil, minimumSpeed: MinimumSpeed? = nil
    ) {
        self.connect = connect
        self.total = total
        self.idle = idle
        self.minimumSpeed = minimumSpeed
    }

    /// The session default: 30 s to connect, 60 s idle, no total limit, no minimum speed.
    public static let `default` = Timeouts(connect: .seconds(30), total: nil, idle: .seconds(60))

    /// No overrides (what `Timeouts()` makes).
    static let unset = Timeouts()

    /// `self` with nil fields taken from `fallback`.
    func merged(over fallback: Timeouts) -> Timeouts {
        Timeouts(
            connect: connect ?? fallback.connect, total: total ?? fallback.total, idle: idle ?? fallback.idle,
            minimumSpeed: minimumSpeed ?? fallback.minimumSpeed)
    }
}

extension Duration {
    /// Whole milliseconds, rounded up so that a tiny positive duration never means "no limit".
    /// A duration too long for milliseconds in an `Int` (`.seconds(Int64.max)` for "forever")
    /// is `Int.max`, not an overflow.
    var curlMilliseconds: Int {
        let (seconds, attoseconds) = components
        let (whole, overflowed) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflowed else { return seconds > 0 ? Int.max : 1 }
        let part = (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        let (ms, overflowedAgain) = whole.addingReportingOverflow(part)
        guard !overflowedAgain else { return Int.max }
        return Int(clamping: max(ms, 1))
    }
}

/// Which HTTP version to ask libcurl for.
public enum HTTPVersionPreference: Sendable, Hashable {
    /// HTTP/1.1 only.
    case http1_1
    /// HTTP/2 over TLS (negotiated by ALPN), HTTP/1.1 over cleartext. The default.
    case http2OverTLS
    /// HTTP/2 with prior knowledge, including over cleartext.
    case http2PriorKnowledge
}
