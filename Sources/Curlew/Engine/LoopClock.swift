/// The curl thread's reading of the clock, taken once each time its loop wakes.
///
/// The callbacks of one turn (every header line, every body chunk) stamp a transfer's
/// activity with it instead of reading the clock each time: they all run between two polls,
/// within one turn, and the idle check compares against the same reading. Used by the curl
/// thread only; every ``EasyHandle`` of the loop's pool points at it.
final class LoopClock {
    /// When the loop last woke.
    // Confined to the curl thread, like the transfer state it stamps: no exclusivity checks.
    @exclusivity(unchecked) private(set) var now = ContinuousClock.now

    /// Reads the clock; called by the loop each time it wakes.
    func tick() {
        now = .now
    }
}
