import Foundation
import Synchronization

extension BenchDriver {
    /// Runs ``main(clientName:makeClient:)`` in a task while the main thread waits on a
    /// semaphore, then exits with its status.
    ///
    /// The binaries use this rather than an `async` top level: with async main, the main
    /// thread parks in libdispatch's `sigsuspend` loop, which Valgrind 3.19 (Debian 12)
    /// crashes on, and the callgrind mode needs these binaries to run under it.
    public static func runAndExit(
        clientName: String,
        makeClient: @escaping @Sendable (BenchArguments) async throws -> any BenchClient
    ) -> Never {
        let status = ExitStatus()
        let finished = DispatchSemaphore(value: 0)
        Task {
            status.code.store(await main(clientName: clientName, makeClient: makeClient), ordering: .relaxed)
            finished.signal()
        }
        finished.wait()
        exit(status.code.load(ordering: .relaxed))
    }
}

/// The exit status handed from the task to the waiting main thread.
private final class ExitStatus: Sendable {
    let code = Atomic<Int32>(0)
}
