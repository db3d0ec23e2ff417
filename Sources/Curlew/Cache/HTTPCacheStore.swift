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

/// A least-recently-used index: keys with their sizes, by last use.
struct LRUIndex<Item> {
    struct Slot {
        var item: Item
        var size: Int
        var lastUse: UInt64
    }

    private(set) var slots: [String: Slot] = [:]
    private(set) var byteCount = 0
    private var clock: UInt64 = 0

    mutating func get(_ key: String) -> Item? {
        guard var slot = slots[key] else { return nil }
        clock += 1
        slot.lastUse = clock
        slots[key] = slot
        return slot.item
    }

    /// Inserts, returning the item it replaced.
    @discardableResult
    mutating func insert(_ item: Item, size: Int, forKey key: String) -> Item? {
        clock += 1
        let old = remove(key)
        slots[key] = Slot(item: item, size: size, lastUse: clock)
        byteCount += size
        return old
    }

    @discardableResult
    mutating func remove(_ key: String) -> Item? {
        guard let slot = slots.removeValue(forKey: key) else { return nil }
        byteCount -= slot.size
        return slot.item
    }

    /// Removes least recently used items until the total fits `limit`; returns them.
    mutating func evict(toFit limit: Int) -> [Item] {
        var evicted: [Item] = []
        guard byteCount > limit else { return evicted }
        let order = slots.sorted { $0.value.lastUse < $1.value.lastUse }
        for (key, _) in order where byteCount > limit {
            if let item = remove(key) { evicted.append(item) }
        }
        return evicted
    }

    mutating func removeAll() -> [Item] {
        let items = slots.values.map(\.item)
        slots = [:]
        byteCount = 0
        return items
    }
}

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
