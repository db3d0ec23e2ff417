import CCurlShims
import Foundation
import Synchronization

/// The thread that owns one libcurl multi handle and every easy handle it uses.
///
/// Other threads never touch curl handles: they append commands to a locked queue, and wake
/// the thread through its own eventfd only when it sleeps (``LoopWakeGate``), after letting go
/// of the lock. The thread runs `curl_multi_perform`, handles every completion of an iteration
/// in one batch, and sleeps in `curl_multi_wait` with the eventfd as an extra descriptor.
/// Continuations are resumed straight from this thread.
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
        /// Opens a WebSocket, or looks at one again (frames to send, a close, room to read).
        case webSocket(WebSocketChannel)
        /// A snapshot of the connection pool, or a close of its idle connections.
        case pool(ConnectionPoolQuery)
    }

    private struct Queue {
        var commands: [Command] = []
        var isShutDown = false
        var gate = LoopWakeGate()
        var shutdownWaiters: [CheckedContinuation<Void, Never>] = []
        var threadExited = false
    }

    private let queue = Mutex(Queue())
    /// The eventfd that wakes the loop, written when ``LoopWakeGate`` asks, outside the lock.
    /// Closed in `deinit`: a writer is inside a method of the loop, so it holds a reference,
    /// and no write can reach a closed (or reused) descriptor. -1 when the loop could not start.
    private let wakeDescriptor: Int32
    /// Why the loop could not start, if it could not.
    private let startFailure: String?

    /// Starts the loop; with `networkNamespacePath` (tests), its thread first enters that
    /// network namespace, so every connection it opens leaves from there.
    init(configuration: SessionConfiguration, networkNamespacePath: String? = nil) {
        CurlGlobal.initialize()
        let descriptor = curlew_wake_descriptor_open()
        let state = descriptor >= 0 ? CurlLoopThreadState(configuration: configuration) : nil
        guard let state else {
            if descriptor >= 0 { curlew_wake_descriptor_close(descriptor) }
            wakeDescriptor = -1
            startFailure = descriptor >= 0
                ? "libcurl could not create a multi handle (out of memory)"
                : "the session could not create its wakeup descriptor (errno \(errno))"
            queue.withLock {
                $0.isShutDown = true
                $0.threadExited = true
            }
            return
        }
        wakeDescriptor = descriptor
        startFailure = nil
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
        if let startFailure { return CurlewError(.transport, startFailure, url: url) }
        return CurlewError(.sessionShutdown, "the session was shut down", url: url)
    }

    /// Hands a new WebSocket to the loop; returns why it cannot take it, if it cannot.
    func submit(_ channel: WebSocketChannel) -> CurlewError? {
        if enqueue(.webSocket(channel)) { return nil }
        if let startFailure { return CurlewError(.transport, startFailure, url: channel.url) }
        return CurlewError(.sessionShutdown, "the session was shut down", url: channel.url)
    }

    /// Asks the loop to look at a WebSocket again.
    func service(_ channel: WebSocketChannel) {
        _ = enqueue(.webSocket(channel))
    }

    /// A snapshot of the pool (``ConnectionLedger``), or, with `closesIdle`, the idle
    /// connections it closed; empty once the loop has shut down.
    func pool(closesIdle: Bool) async -> ConnectionPoolSnapshot {
        await withCheckedContinuation { continuation in
            let query = ConnectionPoolQuery(closesIdle: closesIdle, continuation: continuation)
            if !enqueue(.pool(query)) { query.answer(ConnectionPoolSnapshot(connections: [])) }
        }
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

    deinit {
        if wakeDescriptor >= 0 { curlew_wake_descriptor_close(wakeDescriptor) }
    }

    private func enqueue(_ command: Command) -> Bool {
        let (accepted, signals) = queue.withLock { queue -> (Bool, Bool) in
            guard !queue.isShutDown else { return (false, false) }
            // Only a sleeping loop is woken, once; an awake one (the loop thread itself
            // included) looks at the queue before it sleeps.
            queue.commands.append(command)
            return (true, queue.gate.commandQueued())
        }
        // Outside the lock: the loop wakes to take the queue, and would otherwise find the
        // lock still held and sleep once more in the kernel to get it.
        if signals { _ = curlew_wake_descriptor_signal(wakeDescriptor) }
        return accepted
    }

    /// Fails in-flight transfers with ``CurlewError/Kind/sessionShutdown``, stops the thread
    /// and waits for it to exit, without blocking a thread of the cooperative pool.
    func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (resumeNow, signals) = queue.withLock { queue -> (Bool, Bool) in
                if queue.threadExited { return (true, false) }
                queue.shutdownWaiters.append(continuation)
                guard !queue.isShutDown else { return (false, false) }
                queue.isShutDown = true
                return (false, queue.gate.commandQueued())
            }
            if signals { _ = curlew_wake_descriptor_signal(wakeDescriptor) }
            if resumeNow { continuation.resume() }
        }
    }

    /// Starts a shutdown without waiting for it (used when a session is released).
    func shutdownInBackground() {
        let signals = queue.withLock { queue -> Bool in
            guard !queue.isShutDown else { return false }
            queue.isShutDown = true
            return queue.gate.commandQueued()
        }
        if signals { _ = curlew_wake_descriptor_signal(wakeDescriptor) }
    }

    // MARK: The loop thread

    private func run(_ state: CurlLoopThreadState) {
        // Named from inside: Foundation does not pass `Thread.name` on to the OS on Linux, and
        // the name is what debuggers, profilers and `Thread.current.name` show.
        curlew_name_current_thread("Curlew.Session")
        var running: Int32 = 0
        var pending: [Command] = []
        var wakeup = curl_waitfd(fd: wakeDescriptor, events: Int16(CURL_WAIT_POLLIN), revents: 0)
        while true {
            // One reading of the clock per turn, which the commands, the callbacks of
            // `curl_multi_perform` and the idle check below use (a stamp is early by at most the
            // turn's own duration), and one more after each job: a job is a task's own code,
            // which may take a while.
            state.clock.tick()
            var shuttingDown = false
            // The queue is taken once, and once more when a job ran: a task on
            // `Session.taskExecutor` usually queues its next transfer as it runs, and taking that
            // now lets this turn's `curl_multi_perform` send it, instead of a turn with nothing to
            // do first. Never more than twice, so jobs that keep queuing jobs cannot hold off
            // libcurl.
            for _ in 0..<2 {
                shuttingDown = queue.withLock { queue -> Bool in
                    swap(&pending, &queue.commands)
                    queue.gate.loopAwoke()
                    return queue.isShutDown
                }
                var ranJob = false
                for command in pending {
                    if case .run(let job) = command {
                        job.runSynchronously(on: asUnownedTaskExecutor())
                        state.clock.tick()
                        ranJob = true
                    } else {
                        state.handle(command: command)
                    }
                }
                // Most turns (a poll that found only socket activity) take no command.
                if !pending.isEmpty { pending.removeAll(keepingCapacity: true) }
                if shuttingDown || !ranJob { break }
            }
            if shuttingDown { break }
            curl_multi_perform(state.multi, &running)
            // After a perform, every running transfer has its connection (see ConnectionLedger).
            if state.hasPoolQueries { state.answerPoolQueries() }
            state.processCompletions()
            state.checkIdleTimeouts()
            // Commands queued by this thread (jobs resumed by completions) run without sleeping.
            // With transfers in flight, wake often enough to enforce idle timeouts.
            let sleeps = queue.withLock { queue in
                queue.gate.prepareToSleep(queueIsEmpty: queue.commands.isEmpty && !queue.isShutDown)
            }
            if state.webSockets.isEmpty {
                if sleeps {
                    wakeup.revents = 0
                    curl_multi_wait(state.multi, &wakeup, 1, state.active.isEmpty ? 1000 : 250, nil)
                    // Readable: at least one signal was written, and only this thread reads, so the
                    // read never finds it empty; it takes every signal written so far.
                    if wakeup.revents & Int16(CURL_WAIT_POLLIN) != 0 { _ = curlew_wake_descriptor_drain(wakeDescriptor) }
                }
            } else if state.waitWithWebSockets(wakeDescriptor: sleeps ? wakeDescriptor : nil, timeout: sleeps ? 250 : 0) {
                _ = curlew_wake_descriptor_drain(wakeDescriptor)
            }
        }
        let leftovers = queue.withLock { queue -> [Command] in
            defer { queue.commands.removeAll() }
            return queue.commands
        }
        var transfers: [Transfer] = []
        var channels: [WebSocketChannel] = []
        for command in leftovers {
            switch command {
            case .add(let transfer): transfers.append(transfer)
            case .run(let job): globalConcurrentExecutor.enqueue(ExecutorJob(job))
            case .webSocket(let channel): channels.append(channel)
            case .pool(let query): query.answer(ConnectionPoolSnapshot(connections: []))
            case .cancel, .unpause, .suspend, .resume: break
            }
        }
        state.shutDown(leftovers: transfers, webSockets: channels)
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

/// A snapshot of the pool or a close of its idle connections, waiting for the loop's answer.
final class ConnectionPoolQuery: Sendable {
    let closesIdle: Bool
    private let continuation: CheckedContinuation<ConnectionPoolSnapshot, Never>

    init(closesIdle: Bool, continuation: CheckedContinuation<ConnectionPoolSnapshot, Never>) {
        self.closesIdle = closesIdle
        self.continuation = continuation
    }

    /// Resumes the caller; once.
    func answer(_ snapshot: ConnectionPoolSnapshot) {
        continuation.resume(returning: snapshot)
    }
}

/// `curl_global_init`, once per process.
enum CurlGlobal {
    private static let initialized: Bool = {
        curl_global_init(Int(curlew_CURL_GLOBAL_ALL)) == CURLE_OK
    }()

    static func initialize() { _ = initialized }
}
