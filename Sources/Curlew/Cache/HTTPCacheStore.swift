import Foundation
import Synchronization

/// Where an ``HTTPCache`` keeps responses: ``MemoryCacheStore`` or ``DiskCacheStore``, each with
/// a byte limit and least-recently-used eviction.
protocol HTTPCacheStore: Sendable {
    /// The entry for `key`, marked as used.
    func entry(forKey key: String) -> CacheEntry?
    /// Stores (or replaces) the entry for `key`; a body from a file is copied. Returns false
    /// when it was not stored (larger than the limit, or the disk failed).
    @discardableResult
    func store(_ head: CacheEntryHead, body: CachedBody) -> Bool
    func remove(forKey key: String)
    func removeAll()
    /// The bytes the entries take.
    var byteCount: Int { get }
    var entryCount: Int { get }
}
