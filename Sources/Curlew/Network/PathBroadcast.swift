import Synchronization

/// What a ``ReachabilityMonitor`` publishes: the current path and the tables behind it, the
/// streams that follow it, and what waiting for connectivity needs (when the path was last
/// unsatisfied, how many wait). Written by the monitor's thread, read from anywhere.
final class PathBroadcast: Sendable {
    private struct State {
        var path: NetworkPath?
        var tables = NetworkTables()
        /// When the path was last seen unsatisfied: the end of the latest unsatisfied spell.
        var lastUnsatisfied: ContinuousClock.Instant?
        var subscribers: [Int: AsyncStream<NetworkPath>.Continuation] = [:]
        var nextSubscriber = 0
        var isFinished = false
        /// Tasks in ``ReachabilityMonitor/waitForSatisfiedPath(within:)``.
        var waiting = 0
        var waitingWatchers: [Int: (count: Int, continuation: CheckedContinuation<Void, Never>)] = [:]
        var nextWatcher = 0
        /// Watchers cancelled before they registered.
        var cancelledWatchers: Set<Int> = []
    }

    private let state = Mutex(State())

    /// The latest path; nil before the first publication.
    var path: NetworkPath? { state.withLock { $0.path } }

    /// The tables behind the latest path.
    var tables: NetworkTables { state.withLock { $0.tables } }

    /// Whether the monitor stopped: no more paths will come.
    var isFinished: Bool { state.withLock { $0.isFinished } }

    /// Publishes the path of `tables`; subscribers hear of it only when it differs from the last.
    func publish(_ tables: NetworkTables) {
        publish(tables.path(), tables: tables)
    }

    /// Publishes `path` (tests drive a monitor this way, without netlink).
    func publish(_ path: NetworkPath, tables: NetworkTables = NetworkTables()) {
        let now = ContinuousClock.now
        state.withLock { state in
            guard !state.isFinished else { return }
            state.tables = tables
            // Leaving an unsatisfied spell, or staying in one, moves its end forward.
            if !path.isSatisfied || state.path?.isSatisfied == false { state.lastUnsatisfied = now }
            guard state.path != path else { return }
            state.path = path
            // Yielding under the lock keeps every subscriber's order the publication order;
            // `yield` never calls back into this object.
            for continuation in state.subscribers.values { continuation.yield(path) }
        }
    }

    /// Whether the path was unsatisfied at any moment since `instant` (it may be satisfied now).
    func wasUnsatisfied(since instant: ContinuousClock.Instant) -> Bool {
        state.withLock { state in
            if state.path?.isSatisfied == false { return true }
            guard let last = state.lastUnsatisfied else { return false }
            return last >= instant
        }
    }

    /// A stream of paths: the current one first (once known), then each change. It keeps only
    /// the newest path its consumer has not read yet; it ends when the monitor stops.
    func stream() -> AsyncStream<NetworkPath> {
        let (stream, continuation) = AsyncStream.makeStream(of: NetworkPath.self, bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state -> Int? in
            guard !state.isFinished else { return nil }
            let id = state.nextSubscriber
            state.nextSubscriber += 1
            state.subscribers[id] = continuation
            if let path = state.path { continuation.yield(path) }
            return id
        }
        guard let id else {
            if let path = self.path { continuation.yield(path) }
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Ends every stream; later streams end at once, after the last path.
    func finish() {
        let subscribers = state.withLock { state -> [AsyncStream<NetworkPath>.Continuation] in
            state.isFinished = true
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }

    // MARK: Waiters (counted so that tests can tell when a request waits)

    func beginWaiting() {
        let due = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.waiting += 1
            let count = state.waiting
            let due = state.waitingWatchers.filter { $0.value.count <= count }
            for id in due.keys { state.waitingWatchers[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in due { continuation.resume() }
    }

    func endWaiting() {
        state.withLock { $0.waiting -= 1 }
    }

    /// Returns once at least `count` tasks wait for a satisfied path, or the task is cancelled.
    func untilWaiting(atLeast count: Int) async {
        let id = state.withLock { state -> Int in
            defer { state.nextWatcher += 1 }
            return state.nextWatcher
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.waiting >= count || state.cancelledWatchers.remove(id) != nil { return true }
                    state.waitingWatchers[id] = (count, continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let watcher = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let watcher = state.waitingWatchers.removeValue(forKey: id) else {
                    state.cancelledWatchers.insert(id)
                    return nil
                }
                return watcher.continuation
            }
            watcher?.resume()
        }
        state.withLock { _ = $0.cancelledWatchers.remove(id) }
    }
}
