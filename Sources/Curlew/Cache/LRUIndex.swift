import Foundation
import Synchronization

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
