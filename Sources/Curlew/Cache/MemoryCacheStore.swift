import Foundation
import Synchronization

/// Keeps responses in memory, up to a byte limit; the least recently used go first.
final class MemoryCacheStore: HTTPCacheStore {
    let limit: Int
    private let index = Mutex(LRUIndex<CacheEntry>())

    init(limit: Int) { self.limit = max(0, limit) }

    func entry(forKey key: String) -> CacheEntry? { index.withLock { $0.get(key) } }

    @discardableResult
    func store(_ head: CacheEntryHead, body: CachedBody) -> Bool {
        guard case .memory(let data) = body else { return false }
        let size = data.count + head.approximateSize
        guard size <= limit else {
            remove(forKey: head.key)
            return false
        }
        index.withLock { index in
            index.insert(CacheEntry(head: head, body: body), size: size, forKey: head.key)
            _ = index.evict(toFit: limit)
        }
        return true
    }

    func remove(forKey key: String) { index.withLock { _ = $0.remove(key) } }
    func removeAll() { index.withLock { _ = $0.removeAll() } }
    var byteCount: Int { index.withLock { $0.byteCount } }
    var entryCount: Int { index.withLock { $0.slots.count } }
}
