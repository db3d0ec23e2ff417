/// When a command must wake ``CurlLoop``'s thread: only while it sleeps, and then once.
///
/// Pure bookkeeping, always used under the loop's queue lock together with the queue itself;
/// the caller writes the wakeup descriptor when ``commandQueued()`` asks, after it has let go
/// of the lock, so the loop it wakes never finds the lock still held.
///
/// The protocol, and why no wakeup is lost: the loop decides to sleep in the same critical
/// section in which it sees the queue empty (``prepareToSleep(queueIsEmpty:)``). A command
/// queued before that section is seen there, and the loop does not sleep. A command queued
/// after it finds the gate asleep and signals (``commandQueued()``); the descriptor stays
/// readable until drained, so the poll returns even if it starts after the signal (or the
/// signal lands after the loop woke for a socket: the next poll returns at once). Commands
/// queued while the loop is awake need nothing: the loop looks at the queue before it sleeps.
/// The loop drains the descriptor only when its poll reports it readable, and it is the only
/// reader, so a read never finds it empty; one read takes every signal written before it.
struct LoopWakeGate: Hashable {
    /// The loop has committed to sleeping and no signal has been asked for since.
    private(set) var isAsleep = false

    /// A command (or the shutdown) was queued; true when the caller must signal the loop.
    mutating func commandQueued() -> Bool {
        guard isAsleep else { return false }
        isAsleep = false
        return true
    }

    /// The loop is about to poll; true when it may sleep (nothing is queued).
    mutating func prepareToSleep(queueIsEmpty: Bool) -> Bool {
        isAsleep = queueIsEmpty
        return queueIsEmpty
    }

    /// The loop is awake and takes the queue.
    mutating func loopAwoke() {
        isAsleep = false
    }
}
