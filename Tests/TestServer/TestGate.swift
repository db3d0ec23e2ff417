import Synchronization

/// A gate that handlers wait at until the test opens it: explicit synchronisation instead of a
/// sleep, for tests about ordering ("hold the token endpoint until every request is waiting").
///
/// Once open it stays open; ``wait()`` then returns at once. ``open()`` may be called any
/// number of times, from any thread.
public final class TestGate: Sendable {
    private struct State {
        var isOpen = false
        var waiting = 0
        var continuations: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    /// Creates a gate, closed unless `open`.
    public init(open: Bool = false) {
        state = Mutex(State(isOpen: open))
    }

    /// Whether the gate has been opened.
    public var isOpen: Bool { state.withLock { $0.isOpen } }

    /// How many callers are waiting at the gate now.
    public var waiting: Int { state.withLock { $0.waiting } }

    /// Returns once the gate is open.
    public func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                if state.isOpen { return true }
                state.waiting += 1
                state.continuations.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Opens the gate: every waiter goes on, and later callers do not wait.
    public func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isOpen = true
            state.waiting = 0
            defer { state.continuations.removeAll() }
            return state.continuations
        }
        for waiter in waiters { waiter.resume() }
    }
}
