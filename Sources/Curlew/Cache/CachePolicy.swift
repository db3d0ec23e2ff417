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
