import CCurlShims
import Foundation

/// State owned by the loop thread alone.
final class CurlLoopThreadState: @unchecked Sendable {
    // Safe: created before the thread starts, then used by that thread only.
    let multi: UnsafeMutableRawPointer
    let share: UnsafeMutableRawPointer?
    let handles: EasyHandlePool
    /// The sockets of the session's connections (see ``ConnectionLedger``); outlives the multi
    /// handle, whose cleanup closes the last of them.
    let ledger = ConnectionLedger()
    /// Pool queries taken this turn, answered after its `curl_multi_perform`.
    @exclusivity(unchecked) private var poolQueries: [ConnectionPoolQuery] = []
    /// Read once each time the loop wakes; the callbacks and the idle check use the reading.
    let clock = LoopClock()
    /// The handles in the multi handle, each holding its transfer (``EasyHandle/owner``) and
    /// its index here (``EasyHandle/activeIndex``): added and removed without hashing.
    /// Confined to the loop thread, as all of this state: no runtime exclusivity checks.
    @exclusivity(unchecked) private(set) var active: [EasyHandle] = []
    /// The session's WebSockets, from their open command to their end (see
    /// ``WebSocketChannel``); each knows its index here. While there are none, the loop's wait
    /// is the one it always was.
    @exclusivity(unchecked) var webSockets: [WebSocketChannel] = []
    /// The buffer every WebSocket reads into, one for the loop (64 KiB, made with the first).
    @exclusivity(unchecked) var webSocketScratch: [UInt8] = []
    /// The `curl_waitfd`s of one wait with WebSockets, and the channels behind them, kept
    /// between turns so that a wait allocates nothing.
    @exclusivity(unchecked) var waitDescriptors: [curl_waitfd] = []
    @exclusivity(unchecked) var polledChannels: [WebSocketChannel] = []
    @exclusivity(unchecked) var polledCounts: [Int] = []

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
        let handles = EasyHandlePool(configuration: configuration, share: share, clock: clock, ledger: ledger)
        self.handles = handles
        if let stub = configuration.transportStub {
            stubs = StubTransferDriver(stub: stub, handles: handles, clock: clock)
        } else {
            stubs = nil
        }
    }

    /// Runs a stubbed session's transfers instead of the multi handle; nil for every other session.
    private let stubs: StubTransferDriver?

    func handle(command: CurlLoop.Command) {
        // The one test a real session pays for stubs: a nil check per command, never per callback.
        if let stubs { return stubs.handle(command: command) }
        switch command {
        case .add(let transfer): add(transfer)
        case .cancel(let transfer): stop(transfer)
        case .unpause(let transfer):
            // A suspended transfer stays paused: its resumption unpauses it, and the
            // callbacks pause it again if its consumer or producer is still not ready.
            // A transfer has a handle only while it is in the multi handle.
            if !transfer.context.isSuspended, let handle = transfer.context.handle {
                transfer.context.markActive(at: clock.now)
                curl_easy_pause(handle, curlew_CURLPAUSE_CONT)
            }
        case .suspend(let transfer):
            transfer.context.isSuspended = true
            if let handle = transfer.context.handle {
                // Also before the body starts, the callbacks refuse bytes while suspended.
                curl_easy_pause(handle, curlew_CURLPAUSE_ALL)
            }
            transfer.events?.emit(.suspended)
        case .resume(let transfer):
            transfer.context.isSuspended = false
            if let handle = transfer.context.handle {
                transfer.context.markActive(at: clock.now)
                curl_easy_pause(handle, curlew_CURLPAUSE_CONT)
            }
            transfer.events?.emit(.resumed)
        case .run: break  // Run by the loop itself, which knows the executor.
        case .webSocket(let channel): serviceWebSocket(channel)
        case .pool(let query): poolQueries.append(query)
        }
    }

    private func add(_ transfer: Transfer) {
        if let reason = transfer.state.withLock({ $0.cancelReason }) {
            transfer.finish(.failure(reason))
            return
        }
        let context = transfer.context
        let request = context.request
        let handle: EasyHandle
        do {
            handle = try handles.take(for: request)
        } catch {
            transfer.finish(.failure(error))
            return
        }
        do {
            defer { if context.hopCarriesCredentials { handles.retireWhenReturned(handle) } }
            try handles.prepareProxy(for: context, on: handle, request: request)
            try handles.prepareStreamWeight(context.settings.streamWeight, on: handle, request: request)
            context.trustPolicy = try handles.prepareTrust(on: handle, request: request)
            try context.configure(handle: handle, transfer: transfer, sessionHeaders: handles.sessionHeaders)
            try handles.prepareUnixSocket(context.unixSocket, on: handle, request: request)
            if context.settings.overridesNetwork || handle.networkOverridden {
                try handles.prepareNetwork(context.settings, on: handle, request: request)
            }
            try handles.prepareAltSvc(for: context, on: handle, request: request)
        } catch {
            recycle(handle)
            context.easy = nil
            transfer.finish(.failure(error))
            return
        }
        let code = curl_multi_add_handle(multi, handle.pointer)
        guard code == CURLM_OK else {
            recycle(handle)
            context.easy = nil
            let message = String(cString: curl_multi_strerror(code))
            transfer.finish(.failure(CurlewError(.transport, "curl_multi_add_handle failed: \(message)", url: request.url)))
            return
        }
        handle.owner = transfer
        handle.activeIndex = active.count
        active.append(handle)
    }

    /// Takes `handle` out of ``active``; its transfer is no longer kept by it.
    private func deactivate(_ handle: EasyHandle) {
        let index = handle.activeIndex
        guard index >= 0, index < active.count, active[index] === handle else { return }
        let last = active.removeLast()
        if last !== handle {
            active[index] = last
            last.activeIndex = index
        }
        handle.activeIndex = -1
        handle.owner = nil
    }

    private func stop(_ transfer: Transfer) {
        let reason = transfer.state.withLock { $0.cancelReason }
            ?? CurlewError(.cancelled, "the request was cancelled", url: transfer.context.request.url)
        abort(transfer, with: reason)
    }

    /// Takes a transfer off the multi handle and fails it with `error`.
    private func abort(_ transfer: Transfer, with error: CurlewError) {
        guard let handle = transfer.context.easy, handle.owner === transfer else { return }
        deactivate(handle)
        curl_multi_remove_handle(multi, handle.pointer)
        transfer.context.easy = nil
        recycle(handle)
        transfer.finish(.failure(transfer.context.abandon(with: error)))
    }

    @exclusivity(unchecked) private var nextIdleCheck = ContinuousClock.now

    /// Fails transfers whose server has sent or taken nothing for longer than their idle
    /// timeout. Paused transfers wait on their consumer (or their owner, when suspended),
    /// not on the server, and are skipped.
    func checkIdleTimeouts() {
        let now = clock.now
        // `<`, not `>=`: the Instant's own operator; Comparable's `>=` went through a generic
        // dispatch thunk on every turn of the loop.
        guard !(now < nextIdleCheck), !active.isEmpty else { return }
        nextIdleCheck = now + .milliseconds(200)
        let idle = active.compactMap(\.owner).filter { transfer in
            let context = transfer.context
            guard let limit = context.settings.timeouts.idle, !context.isWaitingOnConsumer, !context.isSuspended else {
                return false
            }
            context.noteHeaderActivity(at: now)
            return now - context.lastActivity > limit && context.hasSentRequest
        }
        for transfer in idle {
            let limit = transfer.context.settings.timeouts.idle ?? .zero
            abort(transfer, with: CurlewError(
                .idleTimeout, transfer.context.idleTimeoutMessage(limit: limit), url: transfer.context.request.url))
        }
    }

    func processCompletions() {
        // Finished after every completed handle is out of the multi handle. Usually there is
        // one: it waits in `first`, and the array (which would allocate) holds any others.
        var first: (Transfer, Result<TransferOutcome, CurlewError>)?
        var finished: [(Transfer, Result<TransferOutcome, CurlewError>)] = []
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let pointer = message.pointee.easy_handle,
                let handle = easyHandle(for: pointer)
            else { continue }
            let code = curlew_multi_message_result(message)
            guard let transfer = handle.owner, transfer.context.easy === handle else {
                deactivate(handle)
                curl_multi_remove_handle(multi, pointer)
                recycle(handle)
                continue
            }
            // Until every connection has its label, one look per finished hop (none after).
            if ledger.unlabelledCount > 0 { ledger.label(connectionOf: pointer, url: transfer.context.request.url) }
            let completion = transfer.context.complete(code: code, transfer: transfer)
            curl_multi_remove_handle(multi, pointer)
            transfer.context.easy = nil
            deactivate(handle)
            if transfer.context.retiresHandle {
                transfer.context.retiresHandle = false
                handles.retireWhenReturned(handle)
            }
            recycle(handle)
            switch completion {
            case .finished(let result):
                if first == nil { first = (transfer, result) } else { finished.append((transfer, result)) }
            case .redirect: add(transfer)
            }
        }
        if let (transfer, result) = first { transfer.finish(result) }
        for (transfer, result) in finished { transfer.finish(result) }
    }

    /// The pool's record of a libcurl handle, which `CURLOPT_PRIVATE` points at.
    private func easyHandle(for pointer: UnsafeMutableRawPointer) -> EasyHandle? {
        var userdata: UnsafeMutableRawPointer?
        _ = curlew_easy_getinfo_pointer(pointer, CURLINFO_PRIVATE, &userdata)
        guard let userdata else { return nil }
        return Unmanaged<EasyHandle>.fromOpaque(userdata).takeUnretainedValue()
    }

    private func recycle(_ handle: EasyHandle) {
        handles.recycle(handle)
    }

    func shutDown(leftovers: [Transfer], webSockets leftoverChannels: [WebSocketChannel]) {
        stubs?.shutDown()
        shutDownWebSockets(leftovers: leftoverChannels)
        let error = { (transfer: Transfer) in
            CurlewError(.sessionShutdown, "the session was shut down", url: transfer.context.request.url)
        }
        let transfers = active.compactMap(\.owner)
        for handle in active {
            handle.owner = nil
            handle.activeIndex = -1
        }
        active.removeAll()
        for transfer in transfers {
            if let handle = transfer.context.easy {
                curl_multi_remove_handle(multi, handle.pointer)
                handle.close()
                transfer.context.easy = nil
            }
            transfer.finish(.failure(transfer.context.abandon(with: error(transfer))))
        }
        for transfer in leftovers { transfer.finish(.failure(error(transfer))) }
        answerPoolQueries()
        handles.removeAll()
        curl_multi_cleanup(multi)
        if let share { curl_share_cleanup(share) }
    }

    var hasPoolQueries: Bool { !poolQueries.isEmpty }

    /// Answers the pool queries taken so far. Run after a `curl_multi_perform`, when every
    /// transfer in the multi handle has been given its connection, or found none yet (libcurl
    /// then reports ports 0): a pooled handle reports its previous connection only before then.
    func answerPoolQueries() {
        let queries = poolQueries
        poolQueries.removeAll()
        guard !queries.isEmpty else { return }
        var uses: [ConnectionLedger.Use] = []
        for handle in active {
            guard let transfer = handle.owner else { continue }
            var localPort = 0
            var remotePort = 0
            var address: UnsafePointer<CChar>?
            curlew_easy_connection_ports(handle.pointer, &localPort, &remotePort, &address)
            let onUnixSocket = transfer.context.unixSocket != nil
            guard onUnixSocket || localPort > 0 else { continue }
            uses.append(ConnectionLedger.Use(
                localPort: localPort, remotePort: remotePort, remoteAddress: address.map { String(cString: $0) } ?? "",
                onUnixSocket: onUnixSocket,
                label: ConnectionLedger.label(of: transfer.context.request.url, httpVersion: .unknown)))
        }
        var busySockets: Set<Int32> = []
        for channel in webSockets {
            // The socket once connected; while it connects, the sockets libcurl waits on.
            busySockets.insert(channel.loopState.socket)
            for (socket, _) in channel.loopState.connectSockets { busySockets.insert(socket) }
        }
        for query in queries {
            query.answer(query.closesIdle
                ? ledger.closeIdle(uses: uses, busySockets: busySockets)
                : ledger.snapshot(uses: uses, busySockets: busySockets))
        }
    }
}
