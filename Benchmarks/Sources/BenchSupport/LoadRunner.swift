import Synchronization

/// Runs `count` operations with `concurrency` of them in flight, timing each one.
///
/// Each of the `concurrency` workers is one child task that takes the next index from a
/// shared atomic counter until all are taken, so the load is closed-loop like wrk's.
public enum LoadRunner {
    /// What one run produced.
    public struct Outcome: Sendable {
        /// Latencies of the operations that succeeded.
        public var latencies: LatencySamples
        /// How many operations threw.
        public var errors: Int
        /// The first error thrown, described.
        public var firstError: String?
        /// Body bytes seen by the operations.
        public var bytes: Int64
    }

    private final class Counter: Sendable {
        let next = Atomic<Int>(0)
    }

    /// Runs the operations; `operation` returns the body bytes it saw. The workers prefer
    /// `executor` when there is one.
    public static func run(
        count: Int, concurrency: Int, executor: (any TaskExecutor)? = nil,
        _ operation: @escaping @Sendable () async throws -> Int64
    ) async -> Outcome {
        let counter = Counter()
        let workers = max(1, min(concurrency, count))
        let perWorker = count / workers + 1
        return await withTaskGroup(of: Outcome.self) { group in
            for _ in 0..<workers {
                let work: @Sendable () async -> Outcome = {
                    var outcome = Outcome(
                        latencies: LatencySamples(capacity: perWorker), errors: 0, bytes: 0)
                    let clock = ContinuousClock()
                    while counter.next.wrappingAdd(1, ordering: .relaxed).oldValue < count {
                        let start = clock.now
                        do {
                            outcome.bytes += try await operation()
                            outcome.latencies.add(clock.now - start)
                        } catch {
                            outcome.errors += 1
                            if outcome.firstError == nil { outcome.firstError = "\(error)" }
                        }
                    }
                    return outcome
                }
                // `executorPreference: nil` is not "no preference" to the runtime: the child
                // task then carries a preference record, and every executor hop it makes takes
                // the task's status lock to read it. A user without a preference calls
                // `addTask` without one, so the driver does too.
                if let executor {
                    group.addTask(executorPreference: executor, operation: work)
                } else {
                    group.addTask(operation: work)
                }
            }
            var total = Outcome(latencies: LatencySamples(capacity: count), errors: 0, bytes: 0)
            for await part in group {
                total.latencies.merge(part.latencies)
                total.errors += part.errors
                total.bytes += part.bytes
                if total.firstError == nil { total.firstError = part.firstError }
            }
            return total
        }
    }
}
