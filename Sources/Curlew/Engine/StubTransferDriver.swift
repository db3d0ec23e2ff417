import CCurlShims
import Foundation

/// Runs a stubbed session's transfers (``SessionConfiguration/transportStub``) on the curl
/// loop's thread, in place of libcurl's multi handle.
///
/// Everything above libcurl stays as it is: each hop takes a pooled easy handle and is
/// configured by ``TransferContext/configure(handle:transfer:sessionHeaders:)`` as for the
/// network, its body is read through ``CurlCallbacks/read`` (so stream, file and multipart
/// bodies come from their own upload sources, with the pump's pauses), the answer's head lines
/// go through the C header callback that libcurl calls, its body pieces through
/// ``CurlCallbacks/write`` (a `CURL_WRITEFUNC_PAUSE` holds the piece back until the transfer is
/// unpaused, as libcurl does) and ``CurlCallbacks/progress``, and the hop ends in
/// ``TransferContext/complete(code:transfer:metrics:)`` with the libcurl code of the failure
/// played back, which ``CurlErrorMapping`` turns into the same error as over the network.
/// The handle never enters the multi handle: nothing is sent.
///
/// The loop hands every command to the driver (one branch in
/// ``CurlLoopThreadState/handle(command:)``), so unpausing, suspending and cancelling reach
/// stubbed transfers as they reach real ones.
final class StubTransferDriver: @unchecked Sendable {
    // Safe: every member is used on the curl loop's thread only. The loop's commands call in
    // there, and each exchange runs in a task whose executor preference is the loop, so its
    // synchronous parts run there too. After the loop shut down (see ``shutDown()``) a task may
    // resume on the global executor; it then reads only its exchange's `isOver`, set before.
    private let stub: any TransportStub
    let handles: EasyHandlePool
    private let clock: LoopClock
    private var exchanges: [ObjectIdentifier: StubExchange] = [:]

    init(stub: any TransportStub, handles: EasyHandlePool, clock: LoopClock) {
        self.stub = stub
        self.handles = handles
        self.clock = clock
    }

    /// One hop of a stubbed transfer while it runs.
    final class StubExchange: @unchecked Sendable {
        // Safe: used on the curl loop's thread only, like the driver (see above).
        let transfer: Transfer
        let handle: EasyHandle
        /// Set when the hop ended (completed, cancelled, shut down): its task stops at its next step.
        var isOver = false
        /// The task waiting for an unpause or a resumption.
        var waiter: CheckedContinuation<Void, Never>?
        var task: Task<Void, Never>?
        let started = ContinuousClock.now
        var firstByte: Duration?
        var bytesSent: Int64 = 0
        var bytesReceived: Int64 = 0
        var httpVersion: HTTPVersion = .unknown

        init(transfer: Transfer, handle: EasyHandle) {
            self.transfer = transfer
            self.handle = handle
        }

        /// Wakes the task if it waits.
        func wake() {
            let waiter = self.waiter
            self.waiter = nil
            waiter?.resume()
        }
    }

    // MARK: Commands

    func handle(command: CurlLoop.Command) {
        switch command {
        case .add(let transfer): add(transfer)
        case .cancel(let transfer):
            guard let exchange = exchanges[ObjectIdentifier(transfer)] else { return }
            let reason = transfer.state.withLock { $0.cancelReason }
                ?? CurlewError(.cancelled, "the request was cancelled", url: transfer.context.request.url)
            abandon(exchange, with: reason)
        case .unpause(let transfer):
            guard let exchange = exchanges[ObjectIdentifier(transfer)], !transfer.context.isSuspended else { return }
            transfer.context.markActive(at: clock.now)
            exchange.wake()
        case .suspend(let transfer):
            transfer.context.isSuspended = true
            transfer.events?.emit(.suspended)
        case .resume(let transfer):
            transfer.context.isSuspended = false
            if let exchange = exchanges[ObjectIdentifier(transfer)] {
                transfer.context.markActive(at: clock.now)
                exchange.wake()
            }
            transfer.events?.emit(.resumed)
        case .run: break
        case .pool(let query): query.answer(ConnectionPoolSnapshot(connections: []))  // A stub opens no connection.
        case .webSocket(let channel):
            // Stubs answer HTTP exchanges; a WebSocket of a stubbed session must not reach the network.
            let error = CurlewError(
                .transport, "a stubbed session opens no WebSockets: HTTPStubs answers HTTP requests only", url: channel.url)
            channel.finishOpening(.failure(error))
            channel.endMessages(.failure(error))
            channel.loopState.stage = .done
            channel.markTornDown(sendFailure: error)
        }
    }

    /// Fails every stubbed transfer in flight with ``CurlewError/Kind/sessionShutdown``.
    func shutDown() {
        for exchange in Array(exchanges.values) {
            let url = exchange.transfer.context.request.url
            abandon(exchange, with: CurlewError(.sessionShutdown, "the session was shut down", url: url))
        }
    }

    private func add(_ transfer: Transfer) {
        if let reason = transfer.state.withLock({ $0.cancelReason }) {
            transfer.finish(.failure(reason))
            return
        }
        let context = transfer.context
        let handle: EasyHandle
        do {
            handle = try handles.take(for: context.request)
        } catch {
            transfer.finish(.failure(error))
            return
        }
        do {
            defer { if context.hopCarriesCredentials { handles.retireWhenReturned(handle) } }
            try context.configure(handle: handle, transfer: transfer, sessionHeaders: handles.sessionHeaders)
        } catch {
            handles.recycle(handle)
            context.easy = nil
            transfer.finish(.failure(error))
            return
        }
        let exchange = StubExchange(transfer: transfer, handle: handle)
        exchanges[ObjectIdentifier(transfer)] = exchange
        exchange.task = Task(executorPreference: transfer.loop) { [self] in await run(exchange) }
    }

    /// Ends the hop and gives its handle back; its task stops at its next step.
    private func end(_ exchange: StubExchange) {
        exchange.isOver = true
        exchanges[ObjectIdentifier(exchange.transfer)] = nil
        let context = exchange.transfer.context
        context.easy = nil
        if context.retiresHandle {
            context.retiresHandle = false
            handles.retireWhenReturned(exchange.handle)
        }
        handles.recycle(exchange.handle)
        exchange.task?.cancel()
        exchange.wake()
    }

    /// Gives the transfer up without an answer (cancelled, idle, shut down), as the loop does.
    private func abandon(_ exchange: StubExchange, with error: CurlewError) {
        let transfer = exchange.transfer
        end(exchange)
        transfer.finish(.failure(transfer.context.abandon(with: error)))
    }

    // MARK: One hop

    private func run(_ exchange: StubExchange) async {
        guard let body = await sendBody(exchange) else { return }
        let context = exchange.transfer.context
        let request = TransportStubRequest(
            method: context.request.method.rawValue, url: context.request.url,
            headerLines: headerLines(exchange), body: body)
        let answer = await stub.answer(request)
        while !exchange.isOver {
            await waitWhileSuspended(exchange)
            if exchange.isOver { return }
            let event = await answer.next()
            if exchange.isOver { return }
            await waitWhileSuspended(exchange)
            if exchange.isOver { return }
            switch event {
            case .head(let bytes):
                guard deliverHead(bytes, exchange) else { return complete(exchange, code: CURLE_WRITE_ERROR) }
            case .body(let bytes):
                guard await deliverBody(bytes, exchange) else {
                    if !exchange.isOver { complete(exchange, code: CURLE_WRITE_ERROR) }
                    return
                }
            case .end:
                return complete(exchange, code: CURLE_OK)
            case .failure(let failure):
                return fail(exchange, with: failure)
            case .reject(let error):
                context.record(error)
                return complete(exchange, code: CURLE_ABORTED_BY_CALLBACK)
            }
        }
    }

    /// Reads the whole request body through the read callback, as libcurl would send it; nil
    /// when the hop ended meanwhile.
    private func sendBody(_ exchange: StubExchange) async -> Data? {
        let context = exchange.transfer.context
        guard context.upload != nil || context.uploadPump != nil else { return Data() }
        var body = Data()
        var buffer = [CChar](repeating: 0, count: 64 << 10)
        while !exchange.isOver {
            if let length = context.uploadLength, context.uploadedBytes >= length { break }
            let count = buffer.withUnsafeMutableBufferPointer { bytes in
                CurlCallbacks.read(bytes.baseAddress, 1, bytes.count, exchange.handle.userdata)
            }
            if count == Int(curlew_CURL_READFUNC_PAUSE) {
                await waitForWake(exchange)
                continue
            }
            if count == Int(curlew_CURL_READFUNC_ABORT) {
                complete(exchange, code: CURLE_ABORTED_BY_CALLBACK)
                return nil
            }
            if count == 0 { break }
            body.append(contentsOf: buffer.prefix(count).map { UInt8(bitPattern: $0) })
            exchange.bytesSent += Int64(count)
            reportProgress(exchange)
            await Task.yield()
        }
        return exchange.isOver ? nil : body
    }

    /// Feeds a head's lines to the C header callback one by one, as libcurl does; false when
    /// the transfer refused one.
    private func deliverHead(_ bytes: Data, _ exchange: StubExchange) -> Bool {
        if exchange.firstByte == nil { exchange.firstByte = ContinuousClock.now - exchange.started }
        if exchange.httpVersion == .unknown {
            exchange.httpVersion = bytes.starts(with: Data("HTTP/2".utf8)) ? .http2
                : bytes.starts(with: Data("HTTP/1.0".utf8)) ? .http1_0 : .http1_1
        }
        var lines: [Data] = []
        var start = bytes.startIndex
        for index in bytes.indices where bytes[index] == UInt8(ascii: "\n") {
            lines.append(bytes[start...index])
            start = index + 1
        }
        if start < bytes.endIndex { lines.append(bytes[start...]) }
        for line in lines {
            var copy = [CChar](line.map { CChar(bitPattern: $0) })
            let taken = copy.withUnsafeMutableBufferPointer { pointer in
                curlew_head_buffer_callback(pointer.baseAddress, 1, pointer.count, exchange.handle.headBuffer)
            }
            if taken != line.count { return false }
        }
        return true
    }

    /// Writes a body piece through the write callback in reads of libcurl's size, waiting out
    /// pauses; false when the transfer refused it (or the hop ended).
    private func deliverBody(_ bytes: Data, _ exchange: StubExchange) async -> Bool {
        if exchange.firstByte == nil { exchange.firstByte = ContinuousClock.now - exchange.started }
        let context = exchange.transfer.context
        let readSize: Int
        switch context.mode {
        case .collect: readSize = 16 << 10
        case .stream: readSize = min(512 << 10, max(16 << 10, context.settings.streamBufferSize))
        case .download: readSize = 512 << 10
        }
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let piece = bytes[offset..<min(offset + readSize, bytes.endIndex)]
            var copy = [CChar](piece.map { CChar(bitPattern: $0) })
            while true {
                if exchange.isOver { return false }
                let taken = copy.withUnsafeMutableBufferPointer { pointer in
                    CurlCallbacks.write(pointer.baseAddress, 1, pointer.count, exchange.handle.userdata)
                }
                if taken == piece.count { break }
                guard taken == Int(curlew_CURL_WRITEFUNC_PAUSE) else { return false }
                // libcurl keeps the piece and offers it again once unpaused.
                await waitForWake(exchange)
            }
            offset += piece.count
            exchange.bytesReceived += Int64(piece.count)
            reportProgress(exchange)
            await Task.yield()
        }
        return !exchange.isOver
    }

    private func reportProgress(_ exchange: StubExchange) {
        let context = exchange.transfer.context
        guard context.reportsProgress else { return }
        let declared = context.finalHead?.response.headerFields[.contentLength].flatMap { Int64($0) } ?? 0
        _ = CurlCallbacks.progress(
            exchange.handle.userdata, curl_off_t(declared), curl_off_t(exchange.bytesReceived),
            curl_off_t(context.uploadLength ?? 0), curl_off_t(exchange.bytesSent))
    }

    private func waitForWake(_ exchange: StubExchange) async {
        guard !exchange.isOver else { return }
        await withCheckedContinuation { exchange.waiter = $0 }
    }

    private func waitWhileSuspended(_ exchange: StubExchange) async {
        while exchange.transfer.context.isSuspended && !exchange.isOver { await waitForWake(exchange) }
    }

    // MARK: The end of a hop

    private func fail(_ exchange: StubExchange, with failure: TransportStubFailure) {
        let context = exchange.transfer.context
        if failure == .idleTimeout {
            let limit = context.settings.timeouts.idle ?? .zero
            let error = CurlewError(.idleTimeout, context.idleTimeoutMessage(limit: limit), url: context.request.url)
            return abandon(exchange, with: error)
        }
        let (code, message) = failure.curlFailure(url: context.request.url, received: exchange.bytesReceived)
        message.withCString { text in
            let count = min(strlen(text), Int(curlew_CURL_ERROR_SIZE) - 1)
            exchange.handle.errorBuffer.update(from: text, count: count)
            exchange.handle.errorBuffer[count] = 0
        }
        complete(exchange, code: code, connected: !failure.happensBeforeConnecting)
    }

    /// Ends the hop as libcurl's completion would: a finished transfer, or its next hop.
    /// `connected` is false for a failure before any connection (the request never left).
    private func complete(_ exchange: StubExchange, code: CURLcode, connected: Bool = true) {
        let transfer = exchange.transfer
        if !connected { exchange.bytesSent = 0 }
        let total = ContinuousClock.now - exchange.started
        let connect: Duration = connected ? max(.nanoseconds(1), total / 2) : .zero
        let metrics = TransferMetrics(
            dnsLookup: .zero, connect: connect, tlsHandshake: .zero,
            timeToFirstByte: exchange.firstByte ?? .zero, total: total, bytesSent: exchange.bytesSent,
            bytesReceived: exchange.bytesReceived, remoteAddress: nil, remotePort: nil,
            httpVersion: exchange.httpVersion, connectionReused: false)
        let completion = transfer.context.complete(code: code, transfer: transfer, metrics: metrics)
        end(exchange)
        switch completion {
        case .finished(let result): transfer.finish(result)
        case .redirect: add(transfer)
        }
    }
}

extension TransportStubFailure {
    /// Whether the network fails this way before a connection exists.
    var happensBeforeConnecting: Bool {
        switch self {
        case .connectionRefused, .hostNotFound, .connectTimeout, .tlsFailure: return true
        case .totalTimeout, .idleTimeout, .connectionReset, .closedMidBody, .emptyReply: return false
        }
    }

    /// The libcurl code and message libcurl 7.88 reports for this failure.
    func curlFailure(url: URL, received: Int64) -> (CURLcode, String) {
        let host = url.host ?? ""
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        switch self {
        case .connectionRefused: return (CURLE_COULDNT_CONNECT, "Failed to connect to \(host) port \(port) after 0 ms: Couldn't connect to server")
        case .hostNotFound: return (CURLE_COULDNT_RESOLVE_HOST, "Could not resolve host: \(host)")
        case .connectTimeout: return (CURLE_OPERATION_TIMEDOUT, "Connection timed out after 0 milliseconds")
        case .totalTimeout, .idleTimeout:
            return (CURLE_OPERATION_TIMEDOUT, "Operation timed out after 0 milliseconds with \(received) bytes received")
        case .tlsFailure: return (CURLE_SSL_CONNECT_ERROR, "OpenSSL SSL_connect: SSL_ERROR_SYSCALL in connection to \(host):\(port)")
        case .connectionReset: return (CURLE_RECV_ERROR, "Recv failure: Connection reset by peer")
        case .closedMidBody: return (CURLE_PARTIAL_FILE, "transfer closed with outstanding read data remaining")
        case .emptyReply: return (CURLE_GOT_NOTHING, "Empty reply from server")
        }
    }
}
