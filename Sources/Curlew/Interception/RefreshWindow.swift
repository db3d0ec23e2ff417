/// How often credentials may be refreshed before refreshing is judged excessive — for example
/// because the server rejects every new credential — and requests fail instead.
public struct RefreshWindow: Sendable, Hashable {
    /// The most refreshes allowed within ``interval``.
    public var maximumRefreshes: Int
    /// The sliding window the refreshes are counted in.
    public var interval: Duration

    /// Allows `maximumRefreshes` refreshes in any `interval`.
    public init(maximumRefreshes: Int, interval: Duration) {
        self.maximumRefreshes = max(1, maximumRefreshes)
        self.interval = interval
    }

    /// At most 5 refreshes in 30 seconds.
    public static let `default` = RefreshWindow(maximumRefreshes: 5, interval: .seconds(30))
}
