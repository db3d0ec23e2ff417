import Foundation
import HTTPTypes

/// What the cache does with a request, given the stored entry (RFC 9111 §4).
enum CacheDecision: Sendable {
    /// Serve the entry without contacting the server.
    case serve(CacheEntry, CacheStatus)
    /// Serve the stale entry now and revalidate it in the background (`stale-while-revalidate`).
    case serveAndRevalidate(CacheEntry)
    /// Go to the network; with an entry, conditionally (when it has validators).
    case load(CacheEntry?)
    /// Nothing usable, and the request may not go to the network.
    case unavailable
}
