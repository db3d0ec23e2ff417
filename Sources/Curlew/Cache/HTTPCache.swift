import Foundation
import HTTPTypes
import Synchronization

/// A private HTTP cache (RFC 9111) for one or more sessions: set it as
/// ``SessionConfiguration/cache``. Opt-in; a session without one pays a single nil check.
///
/// Responses are kept in memory, on disk, or both, each with a byte limit and
/// least-recently-used eviction. The disk store survives a restart and drops a damaged entry
/// instead of serving it. Freshness follows `Cache-Control`, `Expires`, `Age` and `Date`, with
/// heuristic freshness where RFC 9111 allows it; stale responses are revalidated with
/// `If-None-Match`/`If-Modified-Since`. Requests choose a ``CachePolicy``; concurrent loads of
/// one URL are coalesced into one network request.
///
/// One session may act for many users. A request that carries credentials or cookies — in
/// its header fields, through `authenticate(…)`, ``RequestOptions/httpCredential``, the session's
/// ``HTTPCredentialStore``, cookie storage or default headers, the URL's user information, or a
/// client certificate — is answered only by responses stored for a request that carried the
/// same ones, kept in memory only; with credentials, a response is stored only when it says
/// `public`, `must-revalidate` or `s-maxage` (RFC 9111 §3.5). Responses that set cookies are
/// not stored.
///
/// ```swift
/// var configuration = SessionConfiguration()
/// configuration.cache = try HTTPCache(memoryCapacity: 16 << 20, diskCapacity: 256 << 20,
///                                     directory: cachesDirectory.appendingPathComponent("http"))
/// let session = Session(configuration: configuration)
/// ```
public final class HTTPCache: Sendable {
    /// Counts and sizes, for a dashboard or a log line.
    public struct Statistics: Sendable, Hashable, CustomStringConvertible {
        /// Responses served from the cache without the network.
        public var hits = 0
        /// Responses served from the cache after a `304`.
        public var revalidations = 0
        /// Stale responses served (`stale-while-revalidate`, `stale-if-error`, `max-stale`).
        public var staleHits = 0
        /// Responses loaded from the network.
        public var misses = 0
        /// Bytes the memory store holds.
        public var memoryBytes = 0
        /// Entries in the memory store.
        public var memoryEntries = 0
        /// Bytes the disk store's files take.
        public var diskBytes = 0
        /// Entries in the disk store.
        public var diskEntries = 0

        /// The share of responses served from storage (hits, revalidations and stale ones).
        public var hitRatio: Double {
            let served = hits + revalidations + staleHits
            let total = served + misses
            return total == 0 ? 0 : Double(served) / Double(total)
        }

        /// One line with every figure.
        public var description: String {
            let ratio = (hitRatio * 1000).rounded() / 10
            return "hit ratio \(ratio) % (hits \(hits), revalidated \(revalidations), stale \(staleHits), misses \(misses)); "
                + "memory \(memoryBytes) B in \(memoryEntries) entries; disk \(diskBytes) B in \(diskEntries) entries"
        }
    }

    let memory: MemoryCacheStore?
    let disk: DiskCacheStore?
    /// What is stored, unless a request sets its own ``RequestOptions/responseCacher``.
    public let responseCacher: ResponseCacher
    /// The cache's clock; tests inject one.
    let now: @Sendable () -> Date
    private let counts = Mutex(Statistics())
    /// The key of every partition digest (``CacheKey``): random, and never written down.
    let partitionSecret: [UInt8] = {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }()
    private let loads = Mutex<[String: [CheckedContinuation<Void, Never>]]>([:])
    private let background = Mutex<[UUID: Task<Void, Never>]>([:])

    /// Creates a cache.
    ///
    /// - Parameters:
    ///   - memoryCapacity: The memory store's limit in bytes; 0 keeps nothing in memory.
    ///   - diskCapacity: The disk store's limit in bytes; used only with a `directory`.
    ///   - directory: Where the disk store keeps its files (created if missing; an existing
    ///     store there is reopened). Nil for a memory-only cache.
    ///   - responseCacher: What to store (see ``ResponseCacher``).
    ///   - now: The clock that ages responses; the system clock by default.
    /// - Throws: ``CurlewError/Kind/fileSystem`` when the directory cannot be created, or when
    ///   another user owns it or may write in it (they could plant responses; it is created
    ///   with mode 0700).
    public init(
        memoryCapacity: Int = 16 << 20, diskCapacity: Int = 0, directory: URL? = nil,
        responseCacher: ResponseCacher = .cache, now: @escaping @Sendable () -> Date = { Date() }
    ) throws(CurlewError) {
        memory = memoryCapacity > 0 ? MemoryCacheStore(limit: memoryCapacity) : nil
        if let directory, diskCapacity > 0 {
            disk = try DiskCacheStore(directory: directory, limit: diskCapacity)
        } else {
            disk = nil
        }
        self.responseCacher = responseCacher
        self.now = now
    }

    /// The current figures.
    public var statistics: Statistics {
        var statistics = counts.withLock { $0 }
        statistics.memoryBytes = memory?.byteCount ?? 0
        statistics.memoryEntries = memory?.entryCount ?? 0
        statistics.diskBytes = disk?.byteCount ?? 0
        statistics.diskEntries = disk?.entryCount ?? 0
        return statistics
    }

    /// Removes every stored response.
    public func removeAll() {
        memory?.removeAll()
        disk?.removeAll()
    }

    /// Removes the stored responses for `url`: the one any request may get, and those stored
    /// for requests with credentials or cookies.
    public func removeResponse(for url: URL) {
        invalidate(resource: CacheRules.key(url))
    }

    // MARK: Internal

    func record(_ status: CacheStatus) {
        counts.withLock { counts in
            switch status {
            case .hit: counts.hits += 1
            case .revalidated: counts.revalidations += 1
            case .stale: counts.staleHits += 1
            case .miss: counts.misses += 1
            }
        }
    }

    /// The key of `request`: its resource, partitioned by what it carries (see ``CacheKey``).
    func key(for request: OutgoingRequest, session: SessionTransferSettings, trust: TrustConfiguration) -> CacheKey {
        CacheKey(request, identity: CacheIdentity(request: request, session: session, trust: trust), secret: partitionSecret)
    }

    /// The stored entry for `key`. A partition is never looked up on disk, where none is kept.
    func lookup(_ key: CacheKey) -> CacheEntry? {
        memory?.entry(forKey: key.stored) ?? (key.isPartitioned ? nil : disk?.entry(forKey: key.stored))
    }

    /// Removes the entry stored under exactly `key` (one partition, or the resource's own).
    func remove(key: String) {
        memory?.remove(forKey: key)
        disk?.remove(forKey: key)
    }

    /// Removes every entry of `resource`: its own and every partition's (RFC 9111 §4.4 names
    /// the URL, whoever's response is stored for it).
    func invalidate(resource: String) {
        remove(key: resource)
        memory?.removePartitions(of: resource)
    }

    /// Forgets an entry whose body could not be read back.
    func drop(_ entry: CacheEntry) {
        switch entry.body {
        case .memory: memory?.remove(forKey: entry.head.key)
        case .file: disk?.drop(entry)
        }
    }

    /// Stores a network response under `key` when the protocol and the cacher allow it; a
    /// partition only in memory.
    func store(
        _ outcome: TransferOutcome, for request: OutgoingRequest, key: CacheKey, requestControl: CacheControl, requestTime: Date,
        responseTime: Date
    ) {
        let cacher = request.options.responseCacher ?? responseCacher
        let credentialed = key.isCredentialed
        guard outcome.redirects.isEmpty,
            CacheRules.isStorable(outcome.head, request: request, requestControl: requestControl, credentialed: credentialed),
            let response = cacher.head(for: request, response: outcome.head),
            CacheRules.isStorable(response, request: request, requestControl: requestControl, credentialed: credentialed),
            !CacheRules.setsCookies(response)
        else {
            // A new successful response that may not be stored makes the stored one obsolete.
            if (200..<300).contains(outcome.head.status.code), outcome.redirects.isEmpty { remove(key: key.stored) }
            return
        }
        let disk = key.isPartitioned ? nil : self.disk
        var head = CacheEntryHead(
            key: key.stored, status: response.status.code, reason: response.status.reasonPhrase,
            fields: CacheEntryHead.pairs(response.headerFields),
            vary: CacheRules.varyValues(response: response.headerFields, request: request),
            requestTime: requestTime, responseTime: responseTime, bodyLength: 0, bodyChecksum: 0)
        if let pending = outcome.pendingDownload {
            // A download's body stays on disk: it is copied into the disk store only (so a
            // partition's download is not stored at all).
            memory?.remove(forKey: head.key)
            if disk?.store(head, body: .file(path: pending.temporaryPath, offset: 0)) != true { disk?.remove(forKey: head.key) }
            return
        }
        head.bodyLength = outcome.body.count
        if memory?.store(head, body: .memory(outcome.body)) != true { memory?.remove(forKey: head.key) }
        if disk?.store(head, body: .memory(outcome.body)) != true { disk?.remove(forKey: head.key) }
    }

    /// Applies a `304` to the stored entry in each store; returns the entry to serve, which
    /// also carries the `304`'s `Set-Cookie` fields (the stored head never does).
    func update(_ entry: CacheEntry, with notModified: HTTPResponse, for request: OutgoingRequest, requestTime: Date, responseTime: Date) -> CacheEntry {
        var merged = CacheRules.merged(entry.head, with: notModified, requestTime: requestTime, responseTime: responseTime)
        let cookies = notModified.headerFields.filter { $0.name == .setCookie }.map { [$0.name.rawName, $0.value] }
        let cacher = request.options.responseCacher ?? responseCacher
        guard let response = cacher.head(for: request, response: merged.response), !CacheRules.setsCookies(response) else {
            remove(key: entry.head.key)
            merged.fields += cookies
            return CacheEntry(head: merged, body: entry.body)
        }
        merged.fields = CacheEntryHead.pairs(response.headerFields)
        if let stored = memory?.entry(forKey: entry.head.key) {
            var head = merged
            head.bodyLength = stored.head.bodyLength
            head.bodyChecksum = stored.head.bodyChecksum
            memory?.store(head, body: stored.body)
        }
        if let stored = disk?.entry(forKey: entry.head.key) {
            var head = merged
            head.bodyLength = stored.head.bodyLength
            head.bodyChecksum = stored.head.bodyChecksum
            if disk?.store(head, body: stored.body) != true { disk?.remove(forKey: head.key) }
        }
        merged.fields += cookies
        return CacheEntry(head: merged, body: entry.body)
    }

    // MARK: Coalescing

    /// Returns true when the caller is to load `key` (and must call ``finishLoad(_:)``), or
    /// false after another caller's load of `key` finished.
    func leadOrWait(_ key: String) async -> Bool {
        let leads = loads.withLock { loads -> Bool in
            guard loads[key] == nil else { return false }
            loads[key] = []
            return true
        }
        if leads { return true }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let running = loads.withLock { loads -> Bool in
                guard loads[key] != nil else { return false }
                loads[key, default: []].append(continuation)
                return true
            }
            if !running { continuation.resume() }
        }
        return false
    }

    /// How many requests wait for another's load now (for tests).
    var coalescedWaiterCount: Int { loads.withLock { $0.values.reduce(0) { $0 + $1.count } } }

    /// Ends a load begun by ``leadOrWait(_:)`` and wakes those waiting for it.
    func finishLoad(_ key: String) {
        let waiters = loads.withLock { $0.removeValue(forKey: key) } ?? []
        for waiter in waiters { waiter.resume() }
    }

    // MARK: Background revalidation

    func runInBackground(_ work: @escaping @Sendable () async -> Void) {
        let id = UUID()
        background.withLock { tasks in
            tasks[id] = Task {
                await work()
                _ = self.background.withLock { $0.removeValue(forKey: id) }
            }
        }
    }

    /// Waits for the background revalidations started so far (for tests).
    func waitForBackgroundRevalidations() async {
        for task in background.withLock({ Array($0.values) }) { await task.value }
    }
}
