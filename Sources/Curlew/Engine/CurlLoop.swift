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
    private enum Command {
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
        guard let state = LoopThreadState(configuration: configuration) else {
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

    private func run(_ state: LoopThreadState) {
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

    /// State owned by the loop thread alone.
    private final class LoopThreadState: @unchecked Sendable {
        // Safe: created before the thread starts, then used by that thread only.
        let multi: UnsafeMutableRawPointer
        let share: UnsafeMutableRawPointer?
        let handles: EasyHandlePool
        var active: [ObjectIdentifier: Transfer] = [:]

        /// Nil when libcurl cannot make a multi handle (only when out of memory).
        init?(configuration: SessionConfiguration) {
            guard let multi = curl_multi_init() else { return nil }
            self.multi = multi
            _ = curlew_multi_setopt_long(multi, CURLMOPT_PIPELINING, curlew_CURLPIPE_MULTIPLEX)
            _ = curlew_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, configuration.maximumConnectionsPerHost)
            _ = curlew_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, configuration.maximumTotalConnections)
            _ = curlew_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, configuration.maximumIdleConnections)
            share = curl_share_init()
            if let share {
                // Everything runs on this one thread, so the share needs no lock callbacks.
                _ = curlew_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_DNS.rawValue))
                _ = curlew_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_SSL_SESSION.rawValue))
            }
            handles = EasyHandlePool(configuration: configuration, share: share)
        }

        func handle(command: Command) {
            switch command {
            case .add(let transfer): add(transfer)
            case .cancel(let transfer): stop(transfer)
            case .unpause(let transfer):
                // A suspended transfer stays paused: its resumption unpauses it, and the
                // callbacks pause it again if its consumer or producer is still not ready.
                if !transfer.context.isSuspended, active[ObjectIdentifier(transfer)] != nil,
                    let handle = transfer.context.handle
                {
                    transfer.context.markActive()
                    curl_easy_pause(handle, curlew_CURLPAUSE_CONT)
                }
            case .suspend(let transfer):
                transfer.context.isSuspended = true
                if active[ObjectIdentifier(transfer)] != nil, let handle = transfer.context.handle {
                    // Also before the body starts, the callbacks refuse bytes while suspended.
                    curl_easy_pause(handle, curlew_CURLPAUSE_ALL)
                }
                transfer.events?.emit(.suspended)
            case .resume(let transfer):
                transfer.context.isSuspended = false
                if active[ObjectIdentifier(transfer)] != nil, let handle = transfer.context.handle {
                    transfer.context.markActive()
                    curl_easy_pause(handle, curlew_CURLPAUSE_CONT)
                }
                transfer.events?.emit(.resumed)
            case .run: break  // Run by the loop itself, which knows the executor.
            }
        }

        private func add(_ transfer: Transfer) {
            if let reason = transfer.state.withLock({ $0.cancelReason }) {
                transfer.finish(.failure(reason))
                return
            }
            let handle: UnsafeMutableRawPointer
            do {
                handle = try handles.take(for: transfer.context.request.url)
            } catch {
                transfer.finish(.failure(error))
                return
            }
            do {
                defer { if transfer.context.hopCarriesCredentials { handles.retireWhenReturned(handle) } }
                try handles.prepareProxy(transfer.context.settings.proxyOverride, on: handle, url: transfer.context.request.url)
                transfer.context.trustPolicy = try handles.prepareTrust(on: handle, transfer: transfer, url: transfer.context.request.url)
                try transfer.context.configure(handle: handle, transfer: transfer, sessionHeaders: handles.sessionHeaders)
                try handles.prepareUnixSocket(transfer.context.unixSocket, on: handle, url: transfer.context.request.url)
            } catch {
                recycle(handle)
                transfer.context.handle = nil
                transfer.finish(.failure(error))
                return
            }
            let code = curl_multi_add_handle(multi, handle)
            guard code == CURLM_OK else {
                recycle(handle)
                transfer.context.handle = nil
                let message = String(cString: curl_multi_strerror(code))
                transfer.finish(.failure(CurlewError(.transport, "curl_multi_add_handle failed: \(message)", url: transfer.context.request.url)))
                return
            }
            active[ObjectIdentifier(transfer)] = transfer
        }

        private func stop(_ transfer: Transfer) {
            let reason = transfer.state.withLock { $0.cancelReason }
                ?? CurlewError(.cancelled, "the request was cancelled", url: transfer.context.request.url)
            abort(transfer, with: reason)
        }

        /// Takes a transfer off the multi handle and fails it with `error`.
        private func abort(_ transfer: Transfer, with error: CurlewError) {
            guard active.removeValue(forKey: ObjectIdentifier(transfer)) != nil,
                let handle = transfer.context.handle
            else { return }
            curl_multi_remove_handle(multi, handle)
            transfer.context.handle = nil
            recycle(handle)
            transfer.finish(.failure(transfer.context.abandon(with: error)))
        }

        private var nextIdleCheck = ContinuousClock.now

        /// Fails transfers whose server has sent or taken nothing for longer than their idle
        /// timeout. Paused transfers wait on their consumer (or their owner, when suspended),
        /// not on the server, and are skipped.
        func checkIdleTimeouts() {
            let now = ContinuousClock.now
            guard now >= nextIdleCheck, !active.isEmpty else { return }
            nextIdleCheck = now + .milliseconds(200)
            let idle = active.values.filter { transfer in
                let context = transfer.context
                guard let limit = context.settings.timeouts.idle, !context.isWaitingOnConsumer, !context.isSuspended else {
                    return false
                }
                return now - context.lastActivity > limit && context.hasSentRequest
            }
            for transfer in idle {
                let limit = transfer.context.settings.timeouts.idle ?? .zero
                abort(transfer, with: CurlewError(
                    .idleTimeout, "no bytes moved for \(limit)", url: transfer.context.request.url))
            }
        }

        func processCompletions() {
            var finished: [(Transfer, Result<TransferOutcome, CurlewError>)] = []
            var queued: Int32 = 0
            while let message = curl_multi_info_read(multi, &queued) {
                guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle else { continue }
                let code = curlew_multi_message_result(message)
                guard let transfer = activeTransfer(for: handle) else {
                    curl_multi_remove_handle(multi, handle)
                    recycle(handle)
                    continue
                }
                let completion = transfer.context.complete(code: code, transfer: transfer)
                curl_multi_remove_handle(multi, handle)
                transfer.context.handle = nil
                active.removeValue(forKey: ObjectIdentifier(transfer))
                if transfer.context.retiresHandle {
                    transfer.context.retiresHandle = false
                    handles.retireWhenReturned(handle)
                }
                recycle(handle)
                switch completion {
                case .finished(let result): finished.append((transfer, result))
                case .redirect: add(transfer)
                }
            }
            for (transfer, result) in finished { transfer.finish(result) }
        }

        private func activeTransfer(for handle: UnsafeMutableRawPointer) -> Transfer? {
            var userdata: UnsafeMutableRawPointer?
            _ = curlew_easy_getinfo_pointer(handle, CURLINFO_PRIVATE, &userdata)
            guard let userdata else { return nil }
            let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
            return active[ObjectIdentifier(transfer)] === transfer ? transfer : nil
        }

        private func recycle(_ handle: UnsafeMutableRawPointer) {
            handles.recycle(handle)
        }

        func shutDown(leftovers: [Transfer]) {
            let error = { (transfer: Transfer) in
                CurlewError(.sessionShutdown, "the session was shut down", url: transfer.context.request.url)
            }
            for transfer in active.values {
                if let handle = transfer.context.handle {
                    curl_multi_remove_handle(multi, handle)
                    curl_easy_cleanup(handle)
                    transfer.context.handle = nil
                }
                transfer.finish(.failure(transfer.context.abandon(with: error(transfer))))
            }
            active.removeAll()
            for transfer in leftovers { transfer.finish(.failure(error(transfer))) }
            handles.removeAll()
            curl_multi_cleanup(multi)
            if let share { curl_share_cleanup(share) }
        }
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
