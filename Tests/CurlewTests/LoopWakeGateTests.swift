import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Curlew

@Suite("The loop's wakeup protocol (LoopWakeGate)")
struct LoopWakeGateTests {
    @Test func anAwakeLoopIsNotSignalled() {
        var gate = LoopWakeGate()
        gate.loopAwoke()
        let first = gate.commandQueued()
        let second = gate.commandQueued()
        #expect([first, second] == [false, false])
    }

    @Test func aSleepingLoopIsSignalledOnce() {
        var gate = LoopWakeGate()
        let sleeps = gate.prepareToSleep(queueIsEmpty: true)
        let first = gate.commandQueued()
        let second = gate.commandQueued()
        gate.loopAwoke()
        let afterWaking = gate.commandQueued()
        #expect(sleeps)
        #expect(first, "a sleeping loop is signalled")
        #expect(second == false, "a second command needs no second signal")
        #expect(afterWaking == false, "an awake loop looks at the queue itself")
    }

    @Test func aLoopWithQueuedCommandsDoesNotSleep() {
        var gate = LoopWakeGate()
        let sleeps = gate.prepareToSleep(queueIsEmpty: false)
        let signals = gate.commandQueued()
        #expect(sleeps == false)
        #expect(signals == false)
    }

    @Test func aLoopWokenByItsSocketsIsNotSignalled() {
        var gate = LoopWakeGate()
        let sleeps = gate.prepareToSleep(queueIsEmpty: true)
        gate.loopAwoke()
        let signals = gate.commandQueued()
        #expect(sleeps)
        #expect(signals == false, "the loop is awake again")
    }

    /// Every interleaving of up to three producers with four rounds of the loop, as
    /// `CurlLoop.run` and `CurlLoop.enqueue` use the gate, a producer's write coming after its
    /// lock is let go (so any loop step may fall between its decision and its write): no
    /// command is left queued while the loop sleeps on an empty descriptor, no read finds the
    /// descriptor empty.
    @Test(arguments: [1, 2, 3])
    func noInterleavingLosesAWakeup(producers: Int) {
        let outcome = WakeModel.explore(producers: producers, rounds: 4)
        #expect(outcome.failures.isEmpty, "\(outcome.failures.prefix(3))")
        #expect(outcome.states > 10, "the exploration ran")
        #expect(outcome.lateWrites, "some interleaving has a write landing after the loop woke")
    }
}

/// A model of the loop (take the queue, decide to sleep, poll, drain what the poll saw) and of
/// producers (queue and ask the gate under the lock, then write when told), each step atomic.
private struct WakeModel: Hashable {
    enum Step: Hashable { case take, decide, poll, drain }

    var step = Step.take
    var round = 0
    /// Producers that have not queued yet, and those that queued and still owe a write.
    var producersLeft: Int
    var writesOwed = 0
    var queued = 0
    var descriptor = 0
    var gate = LoopWakeGate()
    var sleeps = false
    var sawReadable = false

    static func explore(producers: Int, rounds: Int) -> (states: Int, failures: [String], lateWrites: Bool) {
        var seen: Set<WakeModel> = []
        var failures: [String] = []
        var lateWrites = false
        var stack = [WakeModel(producersLeft: producers)]
        while let model = stack.popLast() {
            guard seen.insert(model).inserted else { continue }
            if model.producersLeft == 0, model.writesOwed == 0, model.isBlocked, model.queued > 0 {
                failures.append("lost wakeup: \(model)")
            }
            if model.producersLeft > 0 {
                var next = model
                next.producersLeft -= 1
                next.queued += 1
                if next.gate.commandQueued() { next.writesOwed += 1 }
                stack.append(next)
            }
            if model.writesOwed > 0 {
                var next = model
                next.writesOwed -= 1
                next.descriptor += 1
                if model.step == .take || model.step == .decide { lateWrites = true }
                stack.append(next)
            }
            if model.round < rounds {
                var next = model
                switch model.step {
                case .take:
                    next.queued = 0
                    next.gate.loopAwoke()
                    next.step = .decide
                case .decide:
                    next.sleeps = next.gate.prepareToSleep(queueIsEmpty: model.queued == 0)
                    next.sawReadable = false
                    next.step = model.queued == 0 ? .poll : .take
                    if model.queued != 0 { next.round += 1 }
                case .poll:
                    // Passing the poll: for a readable descriptor, or for a socket (or the timeout)
                    // even with an empty one; a state that only a socket could leave is
                    // reported above when a command is left queued in it.
                    next.sawReadable = model.descriptor > 0
                    next.step = .drain
                case .drain:
                    if model.sawReadable {
                        if model.descriptor == 0 { failures.append("read of an empty descriptor: \(model)") }
                        next.descriptor = 0
                    }
                    next.sawReadable = false
                    next.step = .take
                    next.round += 1
                }
                stack.append(next)
            }
        }
        return (seen.count, failures, lateWrites)
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
