import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Curlew

@Suite("The loop's wakeup protocol (LoopWakeGate)")
struct LoopWakeGateTests {
    @Test func anAwakeLoopIsNotSignalled() {
        var gate = LoopWakeGate()
        let drains = gate.loopAwoke()
        let first = gate.commandQueued()
        let second = gate.commandQueued()
        #expect([drains, first, second] == [false, false, false])
    }

    @Test func aSleepingLoopIsSignalledOnceAndDrainsOnce() {
        var gate = LoopWakeGate()
        let sleeps = gate.prepareToSleep(queueIsEmpty: true)
        let first = gate.commandQueued()
        let second = gate.commandQueued()
        let drains = gate.loopAwoke()
        let drainsAgain = gate.loopAwoke()
        #expect(sleeps)
        #expect(first, "a sleeping loop is signalled")
        #expect(second == false, "a second command needs no second signal")
        #expect(drains, "the signal written must be drained")
        #expect(drainsAgain == false, "and only once")
    }

    @Test func aLoopWithQueuedCommandsDoesNotSleep() {
        var gate = LoopWakeGate()
        let sleeps = gate.prepareToSleep(queueIsEmpty: false)
        let signals = gate.commandQueued()
        #expect(sleeps == false)
        #expect(signals == false)
    }

    @Test func aLoopWokenByItsSocketsDoesNotDrain() {
        var gate = LoopWakeGate()
        let sleeps = gate.prepareToSleep(queueIsEmpty: true)
        let drains = gate.loopAwoke()
        let signals = gate.commandQueued()
        #expect(sleeps)
        #expect(drains == false, "nothing was written: a read would find the descriptor empty")
        #expect(signals == false, "the loop is awake again")
    }

    /// Every interleaving of up to three producers with three rounds of the loop, as
    /// `CurlLoop.run` and `CurlLoop.enqueue` use the gate: no command is left queued while the
    /// loop sleeps on an empty descriptor, no read finds the descriptor empty, and at most one
    /// signal is outstanding.
    @Test(arguments: [1, 2, 3])
    func noInterleavingLosesAWakeup(producers: Int) {
        let outcome = WakeModel.explore(producers: producers, rounds: 3)
        #expect(outcome.failures.isEmpty, "\(outcome.failures.prefix(3))")
        #expect(outcome.states > 10, "the exploration ran")
    }
}

/// A model of the loop (take the queue and drain, decide to sleep, poll) and of producers
/// (queue and signal when told), each step atomic as under the queue lock.
private struct WakeModel: Hashable {
    enum Step: Hashable { case take, drain, decide, poll }

    var step = Step.take
    var round = 0
    var producersLeft: Int
    var queued = 0
    var descriptor = 0
    var gate = LoopWakeGate()
    var mustDrain = false
    var sleeps = false

    static func explore(producers: Int, rounds: Int) -> (states: Int, failures: [String]) {
        var seen: Set<WakeModel> = []
        var failures: [String] = []
        var stack = [WakeModel(producersLeft: producers)]
        while let model = stack.popLast() {
            guard seen.insert(model).inserted else { continue }
            if model.producersLeft == 0, model.isBlocked, model.queued > 0 {
                failures.append("lost wakeup: \(model)")
            }
            if model.producersLeft > 0 {
                var next = model
                next.producersLeft -= 1
                next.queued += 1
                if next.gate.commandQueued() { next.descriptor += 1 }
                if next.descriptor > 1 { failures.append("two signals outstanding: \(next)") }
                stack.append(next)
            }
            if model.round < rounds {
                var next = model
                switch model.step {
                case .take:
                    next.queued = 0
                    next.mustDrain = next.gate.loopAwoke()
                    next.step = .drain
                case .drain:
                    if model.mustDrain {
                        if model.descriptor == 0 { failures.append("read of an empty descriptor: \(model)") }
                        next.descriptor = 0
                    }
                    next.step = .decide
                case .decide:
                    next.sleeps = next.gate.prepareToSleep(queueIsEmpty: model.queued == 0)
                    next.step = .poll
                case .poll:
                    // Passing the poll: for a readable descriptor, or for a socket (or the timeout)
                    // even with an empty one; a state that only a socket could leave is
                    // reported above when a command is left queued in it.
                    next.step = .take
                    next.round += 1
                }
                stack.append(next)
            }
        }
        return (seen.count, failures)
    }

    /// Asleep in the poll with nothing to wake it.
    var isBlocked: Bool { step == .poll && sleeps && descriptor == 0 }
}

@Suite("The loop wakes promptly for commands from any thread")
struct LoopWakeupStressTests {
    /// Rounds of jobs queued at once from several threads onto the session's executor, each
    /// round racing with the loop going back to sleep after the last. A lost wakeup leaves a
    /// round waiting for the loop's idle poll timeout (one second); a busy machine may stall a
    /// round too, but hardly that long.
    @Test func jobsFromManyThreadsRunPromptly() async {
        let session = Session()
        let executor = session.taskExecutor
        var slowest = Duration.zero
        for _ in 0..<400 {
            let start = ContinuousClock.now
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                let countdown = Countdown(8)
                DispatchQueue.global().async {
                    DispatchQueue.concurrentPerform(iterations: 8) { _ in
                        Task(executorPreference: executor) {
                            if countdown.finishOne() { done.resume() }
                        }
                    }
                }
            }
            slowest = max(slowest, ContinuousClock.now - start)
            if slowest >= .milliseconds(900) { break }  // already red; spare the remaining rounds
        }
        #expect(slowest < .milliseconds(900), "slowest round: \(slowest)")
        await session.shutdown()
    }

    /// A shutdown reaches a sleeping loop at once, not at its next poll timeout (one second).
    /// The fastest of five counts: a busy machine can stall one shutdown, a lost wakeup stalls
    /// every one.
    @Test func shutdownWakesASleepingLoop() async throws {
        let server = try await Fixtures.server()
        var durations: [Duration] = []
        for _ in 0..<5 {
            let session = Session()
            _ = try await session.request(server.url("/get")).validate().data()
            let start = ContinuousClock.now
            await session.shutdown()
            durations.append(ContinuousClock.now - start)
        }
        #expect(durations.min().map { $0 < .milliseconds(500) } == true, "\(durations)")
    }
}

private final class Countdown: Sendable {
    private let left: Atomic<Int>
    init(_ count: Int) { left = Atomic(count) }
    /// True for the call that brings the count to zero.
    func finishOne() -> Bool { left.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 }
}
