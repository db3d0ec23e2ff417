/// When a command must wake ``CurlLoop``'s thread: only while it sleeps, and then once.
///
/// Pure bookkeeping, always used under the loop's queue lock together with the queue itself;
/// the caller does the one write (or read) on the wakeup descriptor that a method asks for.
///
/// The protocol, and why no wakeup is lost: the loop decides to sleep in the same critical
/// section in which it sees the queue empty (``prepareToSleep(queueIsEmpty:)``). A command
/// queued before that section is seen there, and the loop does not sleep. A command queued
/// after it finds the gate asleep and signals (``commandQueued()``); the descriptor stays
/// readable until drained, so the poll returns even if it starts after the signal. Commands
/// queued while the loop is awake need nothing: the loop looks at the queue before it sleeps.
/// A signal is drained at most once, and only when one was written (``loopAwoke()``), so the
/// loop never reads an empty descriptor.
struct LoopWakeGate: Hashable {
    /// The loop has committed to sleeping and no signal has been written since.
    private(set) var isAsleep = false
    /// A signal was written and not drained yet.
    private(set) var isSignalled = false

    /// A command (or the shutdown) was queued; true when the caller must signal the loop.
    mutating func commandQueued() -> Bool {
        guard isAsleep else { return false }
        isAsleep = false
        isSignalled = true
        return true
    }

    /// The loop is about to poll; true when it may sleep (nothing is queued).
    mutating func prepareToSleep(queueIsEmpty: Bool) -> Bool {
        isAsleep = queueIsEmpty
        return queueIsEmpty
    }

    /// The loop is awake and takes the queue; true when it must drain one signal.
    mutating func loopAwoke() -> Bool {
        isAsleep = false
        defer { isSignalled = false }
        return isSignalled
    }
}
