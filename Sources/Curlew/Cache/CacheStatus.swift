import Foundation
import HTTPTypes

/// Where a response came from, in ``TransferMetrics/cacheStatus`` (nil when the session has no
/// cache or the request bypassed it).
public enum CacheStatus: String, Sendable, Hashable {
    /// Served from the cache without contacting the server.
    case hit
    /// Served from the cache after the server confirmed it with `304 Not Modified`.
    case revalidated
    /// Served stale from the cache: within `stale-while-revalidate` (a revalidation runs in the
    /// background) or `stale-if-error` (the server failed).
    case stale
    /// Loaded from the network.
    case miss
}

extension Response {
    /// Whether the response came from the cache (``TransferMetrics/cacheStatus``).
    public var cacheStatus: CacheStatus? { metrics.cacheStatus }
}
