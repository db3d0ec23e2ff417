import CCurlShims
import Foundation
import Synchronization

/// The thread that owns one libcurl multi handle and every easy handle it uses.
///
/// Other threads never touch curl handles: they append commands to a locked queue and wake
/// the thread with `curl_multi_wakeup`. The thread runs `curl_multi_perform`, handles every
/// completion of an iteration in one batch, and sleeps in `curl_multi_poll`. Continuations
/// are resumed straight from this thread.
///
/// The loop is also a `TaskExecutor` (``Session/taskExecutor``): jobs of tasks that prefer it
/// run on this thread between iterations, so a task that awaits its requests there never
/// changes threads. Commands and jobs queued by the loop thread itself need no wakeup.
final class CurlLoop: Sendable {
    enum Command {
        case add(Transfer)
        case cancel(Transfer)
        case unpause(Transfer)
        case suspend(Transfer)
        case resume(Transfer)
        case run(UnownedJob)
    }

    private struct Queue {
        var commands: [Command] = []
        var isShutDown = false
        var shutdownWaiters: [CheckedContinuation<Void, Never>] = []
        var threadExited = false
    }

    private let queue = Mutex(Queue())
    /// The multi handle, for `curl_multi_wakeup` only, always called under `queue`'s lock so
    /// that it never races with the cleanup (which happens after `isShutDown` is set). Nil
    /// when libcurl could not make a multi handle; the loop then never starts.
    private let wakeHandle: MultiHandleReference?
    /// The loop thread's `pthread_t`, once it runs; commands it queues itself need no wakeup.
    private let loopThread = Atomic<UInt>(0)

    /// Starts the loop; with `networkNamespacePath` (tests), its thread first enters that
    /// network namespace, so every connection it opens leaves from there.
    init(configuration: SessionConfiguration, networkNamespacePath: String? = nil) {
        CurlGlobal.initialize()
        guard let state = CurlLoopThreadState(configuration: configuration) else {
            wakeHandle = nil
            queue.withLock {
                $0.isShutDown = true
                $0.threadExited = true
            }
            return
        }
        wakeHandle = MultiHandleReference(state.multi)
        let thread = Thread { [self] in
            if let networkNamespacePath, curlew_enter_network_namespace(networkNamespacePath) != 0 {
                // Outside its namespace the loop would reach the wrong network: it takes no transfers.
                queue.withLock { $0.isShutDown = true }
            }
            run(state)
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    // MARK: Commands from any thread

    /// Hands a transfer to the loop; returns why it cannot take it, if it cannot.
    func submit(_ transfer: Transfer) -> CurlewError? {
        if enqueue(.add(transfer)) { return nil }
        let url = transfer.context.request.url
        guard wakeHandle != nil else {
            return CurlewError(.transport, "libcurl could not create a multi handle (out of memory)", url: url)
        }
        return CurlewError(.sessionShutdown, "the session was shut down", url: url)
    }

    func cancel(_ transfer: Transfer) {
        _ = enqueue(.cancel(transfer))
    }

    func unpause(_ transfer: Transfer) {
        _ = enqueue(.unpause(transfer))
    }

    /// Pauses a transfer until ``resume(_:)``, whatever its consumer or producer asks.
    func suspend(_ transfer: Transfer) {
        _ = enqueue(.suspend(transfer))
    }

    func resume(_ transfer: Transfer) {
        _ = enqueue(.resume(transfer))
    }

    private func enqueue(_ command: Command) -> Bool {
        let fromLoop = isLoopThread
        return queue.withLock { queue in
            guard !queue.isShutDown, let wakeHandle else { return false }
            // A non-empty queue already has a wakeup pending: the loop drains it whole. The loop
            // thread looks at the queue before it sleeps, so it never wakes itself.
            let needsWakeup = queue.commands.isEmpty && !fromLoop
            queue.commands.append(command)
            if needsWakeup { curl_multi_wakeup(wakeHandle.pointer) }
            return true
        }
    }

    /// Fails in-flight transfers with ``CurlewError/Kind/sessionShutdown``, stops the thread
    /// and waits for it to exit, without blocking a thread of the cooperative pool.
    func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = queue.withLock { queue -> Bool in
                if queue.threadExited { return true }
                queue.shutdownWaiters.append(continuation)
                if !queue.isShutDown, let wakeHandle {
                    queue.isShutDown = true
                    curl_multi_wakeup(wakeHandle.pointer)
                }
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Starts a shutdown without waiting for it (used when a session is released).
    func shutdownInBackground() {
        queue.withLock { queue in
            guard !queue.isShutDown, let wakeHandle else { return }
            queue.isShutDown = true
            curl_multi_wakeup(wakeHandle.pointer)
        }
    }

    private var isLoopThread: Bool {
        loopThread.load(ordering: .relaxed) == UInt(pthread_self())
    }

    // MARK: The loop thread

    private func run(_ state: CurlLoopThreadState) {
        // Named from inside: Foundation does not pass `Thread.name` on to the OS on Linux, and
        // the name is what debuggers, profilers and `Thread.current.name` show.
        curlew_name_current_thread("Curlew.Session")
        loopThread.store(UInt(pthread_self()), ordering: .relaxed)
        var running: Int32 = 0
        var pending: [Command] = []
        while true {
            let shuttingDown = queue.withLock { queue -> Bool in
                swap(&pending, &queue.commands)
                return queue.isShutDown
            }
            for command in pending {
                if case .run(let job) = command {
                    job.runSynchronously(on: asUnownedTaskExecutor())
                } else {
                    state.handle(command: command)
                }
            }
            pending.removeAll(keepingCapacity: true)
            if shuttingDown { break }
            curl_multi_perform(state.multi, &running)
            state.processCompletions()
            state.checkIdleTimeouts()
            // Commands queued by this thread (jobs resumed by completions) run without sleeping.
            // With transfers in flight, wake often enough to enforce idle timeouts.
            if queue.withLock({ $0.commands.isEmpty }) {
                curl_multi_poll(state.multi, nil, 0, state.active.isEmpty ? 1000 : 250, nil)
            }
        }
        let leftovers = queue.withLock { queue -> [Command] in
            defer { queue.commands.removeAll() }
            return queue.commands
        }
        var transfers: [Transfer] = []
        for command in leftovers {
            switch command {
            case .add(let transfer): transfers.append(transfer)
            case .run(let job): globalConcurrentExecutor.enqueue(ExecutorJob(job))
            case .cancel, .unpause, .suspend, .resume: break
            }
        }
        state.shutDown(leftovers: transfers)
        let waiters = queue.withLock { queue -> [CheckedContinuation<Void, Never>] in
            queue.threadExited = true
            defer { queue.shutdownWaiters.removeAll() }
            return queue.shutdownWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

extension CurlLoop: TaskExecutor {
    /// Runs `job` on the loop thread; once the loop has shut down, on the global executor.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if !enqueue(.run(job)) { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
    }
}

/// The multi handle pointer, shared only for `curl_multi_wakeup`.
private struct MultiHandleReference: @unchecked Sendable {
    // Safe: only passed to curl_multi_wakeup, which libcurl documents as callable from any
    // thread, and only under CurlLoop's queue lock before the loop cleans the handle up.
    let pointer: UnsafeMutableRawPointer
    init(_ pointer: UnsafeMutableRawPointer) { self.pointer = pointer }
}

/// `curl_global_init`, once per process.
enum CurlGlobal {
    private static let initialized: Bool = {
        curl_global_init(Int(curlew_CURL_GLOBAL_ALL)) == CURLE_OK
    }()

    static func initialize() { _ = initialized }
}
