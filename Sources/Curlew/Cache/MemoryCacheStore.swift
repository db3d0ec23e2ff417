import Foundation
import Synchronization

/// Keeps responses in memory, up to a byte limit; the least recently used go first.
///
/// It also knows, for each resource, the keys of its partitions (see ``CacheKey``), so that
/// invalidating a resource reaches every user's entry without a scan of the whole store.
final class MemoryCacheStore: HTTPCacheStore {
    private struct State {
        var index = LRUIndex<CacheEntry>()
        /// Resource key → the partitioned keys stored for it.
        var partitions: [String: Set<String>] = [:]

        mutating func forget(_ removed: CacheEntry?) {
            guard let key = removed?.head.key else { return }
            let resource = CacheKey.resource(ofStored: key)
            guard resource.utf8.count != key.utf8.count else { return }
            let name = String(resource)
            partitions[name]?.remove(key)
            if partitions[name]?.isEmpty == true { partitions[name] = nil }
        }
    }

    let limit: Int
    private let state = Mutex(State())

    init(limit: Int) { self.limit = max(0, limit) }

    func entry(forKey key: String) -> CacheEntry? { state.withLock { $0.index.get(key) } }

    @discardableResult
    func store(_ head: CacheEntryHead, body: CachedBody) -> Bool {
        guard case .memory(let data) = body else { return false }
        let size = data.count + head.approximateSize
        guard size <= limit else {
            remove(forKey: head.key)
            return false
        }
        state.withLock { state in
            state.index.insert(CacheEntry(head: head, body: body), size: size, forKey: head.key)
            let resource = CacheKey.resource(ofStored: head.key)
            if resource.utf8.count != head.key.utf8.count { state.partitions[String(resource), default: []].insert(head.key) }
            for evicted in state.index.evict(toFit: limit) { state.forget(evicted) }
        }
        return true
    }

    func remove(forKey key: String) {
        state.withLock { state in state.forget(state.index.remove(key)) }
    }

    /// Removes the entries of every partition of `resource` (not the resource's own entry).
    func removePartitions(of resource: String) {
        state.withLock { state in
            for key in state.partitions.removeValue(forKey: resource) ?? [] { state.index.remove(key) }
        }
    }

    func removeAll() {
        state.withLock { state in
            _ = state.index.removeAll()
            state.partitions = [:]
        }
    }

    var byteCount: Int { state.withLock { $0.index.byteCount } }
    var entryCount: Int { state.withLock { $0.index.slots.count } }
}
