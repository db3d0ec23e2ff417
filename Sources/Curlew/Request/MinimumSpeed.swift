/// A floor on a transfer's speed, for stopping servers that drip bytes just fast enough never
/// to be idle: the transfer fails with ``CurlewError/Kind/tooSlow`` when fewer than
/// ``bytesPerSecond`` bytes per second moved, on average, over the last ``window``.
///
/// ```swift
/// var options = RequestOptions()
/// options.timeouts.minimumSpeed = MinimumSpeed(bytesPerSecond: 1024, over: .seconds(10))
/// ```
///
/// This is libcurl's `CURLOPT_LOW_SPEED_LIMIT` and `CURLOPT_LOW_SPEED_TIME`. The speed counts
/// body bytes received and sent, and is measured from when the request starts to be sent, so
/// the time a server takes to answer counts too: choose a window longer than that. A transfer
/// paused because its consumer is behind (``DataRequest/bytes``) is not checked while paused,
/// but libcurl's average still spans the pause, so a consumer that stops reading for long can
/// trip a tight floor soon after it resumes; a slow upload producer is checked throughout.
/// The window is rounded up to whole seconds.
public struct MinimumSpeed: Sendable, Hashable {
    /// The lowest acceptable average speed, in bytes per second; must be positive.
    public var bytesPerSecond: Int
    /// How long the speed may stay below ``bytesPerSecond`` before the transfer fails; must be
    /// positive.
    public var window: Duration

    /// Creates a floor of `bytesPerSecond` averaged over `window`.
    public init(bytesPerSecond: Int, over window: Duration) {
        self.bytesPerSecond = bytesPerSecond
        self.window = window
    }

    /// The window in whole seconds, rounded up, as `CURLOPT_LOW_SPEED_TIME` takes it.
    var curlSeconds: Int {
        let (seconds, attoseconds) = window.components
        return Int(clamping: seconds + (attoseconds > 0 ? 1 : 0))
    }
}
