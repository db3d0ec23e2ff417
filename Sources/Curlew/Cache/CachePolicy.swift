import Foundation
import HTTPTypes

/// How one request uses the session's ``HTTPCache`` (``RequestOptions/cachePolicy``).
public enum CachePolicy: Sendable, Hashable {
    /// RFC 9111: serve fresh responses, revalidate stale ones, store what may be stored.
    case useProtocolPolicy
    /// Go to the network whatever is stored; store the response as the protocol allows.
    case reloadIgnoringCache
    /// Serve a stored response of any age, else load (and store) it.
    case returnCacheDataElseLoad
    /// Serve a stored response of any age, else fail with ``CurlewError/Kind/notCached``
    /// without touching the network (offline mode).
    case returnCacheDataDontLoad
}

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

/// What the cache stores, like Alamofire's `ResponseCacher`: set it on the ``HTTPCache`` or per
/// request (``RequestOptions/responseCacher``). It runs only for responses the protocol allows
/// to be stored.
public struct ResponseCacher: Sendable {
    /// The choice for one response.
    public enum Behavior: Sendable {
        /// Store the response as it is.
        case cache
        /// Do not store it.
        case doNotCache
        /// Store the head this closure returns (for example with a longer `Cache-Control`), or
        /// nothing when it returns nil. The body is stored as it arrived.
        case modify(@Sendable (OutgoingRequest, HTTPResponse) -> HTTPResponse?)
    }

    /// The behaviour.
    public let behavior: Behavior

    /// Creates a cacher.
    public init(behavior: Behavior) { self.behavior = behavior }

    /// Stores responses as they are (the default).
    public static let cache = ResponseCacher(behavior: .cache)
    /// Stores nothing.
    public static let doNotCache = ResponseCacher(behavior: .doNotCache)

    /// The head to store for `response`, or nil.
    func head(for request: OutgoingRequest, response: HTTPResponse) -> HTTPResponse? {
        switch behavior {
        case .cache: return response
        case .doNotCache: return nil
        case .modify(let change): return change(request, response)
        }
    }
}

extension Response {
    /// Whether the response came from the cache (``TransferMetrics/cacheStatus``).
    public var cacheStatus: CacheStatus? { metrics.cacheStatus }
}
