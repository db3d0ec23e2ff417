import CCurlShims
import CTLSShims
import Foundation
import HTTPTypes

/// The curl thread's work on a channel: connecting through libcurl, then reading and writing
/// the socket itself with `curl_easy_recv` and `curl_easy_send`.
extension WebSocketChannel {
    /// Takes a handle, configures it as a request's would be (proxy, trust, Unix socket) but to
    /// connect only, and adds it to the multi handle. Nil when it cannot start.
    func start(on state: CurlLoopThreadState, now: ContinuousClock.Instant) -> CurlewError? {
        let loop = loopState
        let pool = state.handles
        let handle: EasyHandle
        do {
            handle = try pool.take(for: request)
        } catch {
            return error
        }
        // Never pooled again: the connection belongs to the WebSocket, and libcurl closes a
        // connect-only connection when its handle leaves the multi handle.
        handle.retiring = true
        do throws(CurlewError) {
            context.easy = handle
            try pool.prepareProxy(for: context, on: handle, request: request)
            context.trustPolicy = try pool.prepareTrust(on: handle, request: request)
            let route = try UnixSocketRoute.resolve(request)
            context.unixSocket = route
            let options = EasyOptions(handle: handle.pointer, request: request)
            let curlURL = route?.curlURL ?? request.urlText
            try options.set(CURLOPT_URL, curlURL)
            try handle.parse(curlURL, options)
            handle.url = curlURL
            try options.set(CURLOPT_CONNECT_ONLY, 1)
            // Curlew reads the socket into the loop's own scratch buffer (curl_easy_recv), so
            // libcurl's transfer buffer only serves the connect: its smallest size (measured
            // 1.4 KiB less resident memory per connection, docs/benchmarks.md, WebSockets).
            try options.set(CURLOPT_BUFFERSIZE, 1024)
            // Through an HTTP proxy, a CONNECT tunnel for ws:// too: the handshake is Curlew's own.
            try options.set(CURLOPT_HTTPPROXYTUNNEL, 1)
            // ALPN offers http/1.1 only: the handshake is HTTP/1.1 (RFC 8441 is not supported).
            try options.set(CURLOPT_HTTP_VERSION, curlew_CURL_HTTP_VERSION_1_1)
            try options.set(CURLOPT_CONNECTTIMEOUT_MS, openTimeoutMilliseconds)
            try options.set(CURLOPT_TIMEOUT_MS, 0)
            try options.set(CURLOPT_NOPROGRESS, 1)
            try options.check(curlew_easy_setopt_slist(handle.pointer, CURLOPT_HTTPHEADER, nil), "CURLOPT_HTTPHEADER")
            // The trust policy's check runs after the connection is up (below), not in the
            // pre-request callback, which needs a transfer.
            try options.check(curlew_easy_setopt_prereq_callback(handle.pointer, nil), "CURLOPT_PREREQFUNCTION")
            try pool.prepareUnixSocket(route, on: handle, request: request)
        } catch {
            context.easy = nil
            handle.close()
            return error.adding(url: url)
        }
        guard let multi = curl_multi_init() else {
            context.easy = nil
            handle.close()
            return CurlewError(.transport, "curl_multi_init failed: out of memory", url: url)
        }
        loop.multi = multi
        loop.easy = handle
        _ = curlew_multi_setopt_socket_callback(
            multi, WebSocketLoopState.socketCallback, Unmanaged.passUnretained(loop).toOpaque())
        let code = curl_multi_add_handle(multi, handle.pointer)
        guard code == CURLM_OK else {
            releaseConnection()
            return CurlewError(.transport, "curl_multi_add_handle failed: \(String(cString: curl_multi_strerror(code)))", url: url)
        }
        loop.stage = .connecting
        loop.deadline = now + options.openTimeout
        driveConnect(socket: CURL_SOCKET_TIMEOUT, revents: 0, on: state, now: now)
        return nil
    }

    /// Lets libcurl work on the connection (`curl_multi_socket_action`) for `socket` (its
    /// timer for `CURL_SOCKET_TIMEOUT`), then takes the connect-only transfer's end if it came.
    func driveConnect(socket: Int32, revents: Int16, on state: CurlLoopThreadState, now: ContinuousClock.Instant) {
        let loop = loopState
        guard loop.stage == .connecting, let multi = loop.multi else { return }
        var mask: Int32 = 0
        if revents & Int16(CURL_WAIT_POLLIN | CURL_WAIT_POLLPRI) != 0 { mask |= CURL_CSELECT_IN }
        if revents & Int16(CURL_WAIT_POLLOUT) != 0 { mask |= CURL_CSELECT_OUT }
        if revents & 0x18 != 0 { mask |= CURL_CSELECT_ERR }  // POLLERR | POLLHUP
        var running: Int32 = 0
        curl_multi_socket_action(multi, socket, mask, &running)
        var queued: Int32 = 0
        while loop.stage == .connecting, let message = curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE else { continue }
            connected(code: curlew_multi_message_result(message), on: state, now: now)
        }
    }

    /// The milliseconds until libcurl's timer for the connection is due; nil when it has none.
    var connectTimerMilliseconds: Int? {
        guard loopState.stage == .connecting, let multi = loopState.multi else { return nil }
        var milliseconds = -1
        curl_multi_timeout(multi, &milliseconds)
        return milliseconds < 0 ? nil : milliseconds
    }

    /// Frees the handle and the multi handle: libcurl closes a connect-only connection when
    /// its handle leaves the multi handle (7.88 marks it for closing), and the multi handle's
    /// cleanup closes every connection it keeps.
    func releaseConnection() {
        let loop = loopState
        if let handle = loop.easy {
            if let multi = loop.multi { curl_multi_remove_handle(multi, handle.pointer) }
            handle.close()
        }
        if let multi = loop.multi { curl_multi_cleanup(multi) }
        loop.easy = nil
        loop.multi = nil
        loop.connectSockets = []
        context.easy = nil
        loop.socket = -1
    }

    private var openTimeoutMilliseconds: Int { max(1, options.openTimeout.curlMilliseconds) }

    /// libcurl finished connecting (`CURLMSG_DONE` of the connect-only transfer).
    func connected(code: CURLcode, on state: CurlLoopThreadState, now: ContinuousClock.Instant) {
        let loop = loopState
        guard loop.stage == .connecting, let handle = loop.easy else { return }
        loop.connectSockets = []
        guard code == CURLE_OK else {
            let message = String(cString: handle.errorBuffer)
            let mapped = CurlErrorMapping.error(for: code, message: message, context: context, metrics: TransferMetrics(handle: handle.pointer))
            fail(CurlewError(mapped.kind, mapped.message, url: url, curlCode: mapped.curlCode, curlMessage: mapped.curlMessage),
                 closeCode: nil, on: state, now: now)
            return
        }
        if let policy = context.trustPolicy, request.url.scheme?.lowercased() == "https",
            let rejection = TrustEvaluator.evaluate(policy, handle: handle.pointer, url: request.url)
        {
            fail(CurlewError(rejection.kind, rejection.message, url: url, underlying: rejection.underlying),
                 closeCode: nil, on: state, now: now)
            return
        }
        let socket = curlew_easy_active_socket(handle.pointer)
        guard socket >= 0 else {
            fail(CurlewError(.transport, "libcurl connected but reports no socket", url: url), closeCode: nil, on: state, now: now)
            return
        }
        loop.socket = socket
        loop.stage = .handshaking
        loop.lastReceive = now
        loop.lastSendProgress = now
        var fields = TransferContext.withSessionHeaders(
            request.headerFields, userAgent: context.settings.userAgent, acceptLanguage: context.settings.acceptLanguage,
            defaults: context.settings.defaultHeaders)
        if let storage = context.settings.cookieStorage,
            let cookies = storage.cookieHeader(for: request.url, siteForCookies: request.url, method: .get)
        {
            fields.append(HTTPField(name: .cookie, value: cookies))
        }
        let head = handshake.requestHead(for: request.url, fields: fields, host: context.unixSocket == nil ? nil : "localhost")
        loop.outgoing.append(contentsOf: head)
        loop.queuedTotal += head.count
        flush(on: state, now: now)
        if loop.stage == .handshaking { read(on: state, now: now) }
    }

    /// Appends the `curl_waitfd`s the channel waits on: libcurl's sockets while it connects,
    /// then the connection's own, for input while the consumer has room and for output while
    /// bytes wait to be written.
    func appendWaitDescriptors(to descriptors: inout [curl_waitfd]) {
        let loop = loopState
        switch loop.stage {
        case .connecting:
            for entry in loop.connectSockets {
                descriptors.append(curl_waitfd(fd: entry.socket, events: entry.events, revents: 0))
            }
        case .handshaking, .open, .closing:
            guard loop.socket >= 0 else { return }
            var events: Int16 = 0
            if !loop.readingStopped { events |= Int16(CURL_WAIT_POLLIN) }
            if loop.hasPendingOutput { events |= Int16(CURL_WAIT_POLLOUT) }
            if events != 0 { descriptors.append(curl_waitfd(fd: loop.socket, events: events, revents: 0)) }
        case .waiting, .done:
            break
        }
    }

    /// Handles what one wait reported for the channel's descriptors.
    func ready(_ descriptors: ArraySlice<curl_waitfd>, on state: CurlLoopThreadState, now: ContinuousClock.Instant) {
        for descriptor in descriptors where descriptor.revents != 0 {
            if loopState.stage == .connecting {
                driveConnect(socket: descriptor.fd, revents: descriptor.revents, on: state, now: now)
            } else if descriptor.fd == loopState.socket {
                ready(descriptor.revents, on: state, now: now)
            }
        }
    }

    /// Handles what the poll reported for the socket.
    func ready(_ revents: Int16, on state: CurlLoopThreadState, now: ContinuousClock.Instant) {
        if revents & Int16(CURL_WAIT_POLLOUT) != 0 { flush(on: state, now: now) }
        if revents & Int16(CURL_WAIT_POLLIN | CURL_WAIT_POLLPRI) != 0 || revents & 0x18 != 0 {  // POLLERR | POLLHUP
            read(on: state, now: now)
        }
    }

    /// Reads until the socket has nothing more, the consumer's buffer is full, or the connection ends.
    func read(on state: CurlLoopThreadState, now: ContinuousClock.Instant) {
        let loop = loopState
        while loop.stage != .done, !loop.readingStopped, let handle = loop.easy, loop.socket >= 0 {
            var received = 0
            let code = state.webSocketScratch.withUnsafeMutableBytes { buffer in
                curl_easy_recv(handle.pointer, buffer.baseAddress, buffer.count, &received)
            }
            if code == CURLE_AGAIN { return }
            guard code == CURLE_OK else {
                connectionLost(CurlewError(
                    .webSocketClosed, "reading from the server failed: \(String(cString: curl_easy_strerror(code)))",
                    url: url, curlCode: Int(code.rawValue)), on: state, now: now)
                return
            }
            guard received > 0 else {
                serverEnded(on: state, now: now)
                return
            }
            loop.lastReceive = now
            state.webSocketScratch.withUnsafeBytes { buffer in
                receive(UnsafeRawBufferPointer(rebasing: buffer[0..<received]), on: state, now: now)
            }
        }
    }

    /// Writes queued bytes until the socket takes no more; resumes the sends they finish.
    func flush(on state: CurlLoopThreadState, now: ContinuousClock.Instant) {
        let loop = loopState
        guard let handle = loop.easy, loop.socket >= 0 else { return }
        while loop.hasPendingOutput {
            var sent = 0
            let code = loop.outgoing.withUnsafeBytes { buffer in
                curl_easy_send(handle.pointer, buffer.baseAddress! + loop.outgoingStart, buffer.count - loop.outgoingStart, &sent)
            }
            if code == CURLE_AGAIN { break }
            guard code == CURLE_OK else {
                connectionLost(CurlewError(
                    .webSocketClosed, "sending to the server failed: \(String(cString: curl_easy_strerror(code)))",
                    url: url, curlCode: Int(code.rawValue)), on: state, now: now)
                return
            }
            loop.outgoingStart += sent
            loop.writtenTotal += sent
            loop.lastSendProgress = now
        }
        if !loop.hasPendingOutput {
            loop.outgoing.removeAll(keepingCapacity: loop.outgoing.capacity <= 64 << 10)
            loop.outgoingStart = 0
        } else if loop.outgoingStart >= 64 << 10 {
            loop.outgoing.removeFirst(loop.outgoingStart)
            loop.outgoingStart = 0
        }
        var finished = 0
        while finished < loop.writeWaiters.count, loop.writeWaiters[finished].end <= loop.writtenTotal { finished += 1 }
        if finished > 0 {
            let done = loop.writeWaiters.prefix(finished)
            loop.writeWaiters.removeFirst(finished)
            for waiter in done { waiter.continuation.resume() }
        }
    }

    /// Queues `bytes` for the socket; `waiter` resumes once they are written.
    func queue(_ bytes: [UInt8], waiter: CheckedContinuation<Void, any Error>?, now: ContinuousClock.Instant) {
        let loop = loopState
        if !loop.hasPendingOutput { loop.lastSendProgress = now }
        loop.outgoing.append(contentsOf: bytes)
        loop.queuedTotal += bytes.count
        if let waiter { loop.writeWaiters.append((loop.queuedTotal, waiter)) }
    }

    /// Timers: the open and close deadlines, keep-alive pings, the idle and send timeouts.
    func tick(on state: CurlLoopThreadState, now: ContinuousClock.Instant) {
        let loop = loopState
        switch loop.stage {
        case .connecting, .handshaking:
            if connectTimerMilliseconds == 0 { driveConnect(socket: CURL_SOCKET_TIMEOUT, revents: 0, on: state, now: now) }
            if loop.stage != .done, let deadline = loop.deadline, !(now < deadline) {
                fail(CurlewError(.connectTimeout, "the WebSocket was not open within \(options.openTimeout)", url: url),
                     closeCode: nil, on: state, now: now)
            }
        case .open:
            if loop.hasPendingOutput, now - loop.lastSendProgress > options.sendTimeout {
                fail(CurlewError(.idleTimeout, "the server took no bytes for \(options.sendTimeout) while Curlew was sending", url: url),
                     closeCode: nil, on: state, now: now)
                return
            }
            if let idle = options.idleTimeout, !loop.readingStopped, now - loop.lastReceive > idle {
                fail(CurlewError(.idleTimeout, "nothing arrived from the server for \(idle)", url: url),
                     closeCode: .goingAway, on: state, now: now)
                return
            }
            if let interval = options.pingInterval, now - max(loop.lastReceive, loop.lastPing) >= interval {
                loop.lastPing = now
                sendControl(.ping, payload: [], now: now)
                flush(on: state, now: now)
            }
        case .closing:
            if let deadline = loop.deadline, !(now < deadline) { tearDown(on: state) }
        case .waiting, .done:
            break
        }
    }

    /// The socket failed: no close handshake is possible.
    func connectionLost(_ error: CurlewError, on state: CurlLoopThreadState, now: ContinuousClock.Instant) {
        fail(error, closeCode: nil, on: state, now: now)
    }

    /// The server ended the connection (a read found its end).
    func serverEnded(on state: CurlLoopThreadState, now: ContinuousClock.Instant) {
        let loop = loopState
        if loop.stage == .closing || loop.closeReceived {
            tearDown(on: state)
            return
        }
        let during = loop.stage == .handshaking ? "before answering the WebSocket handshake" : "without a close frame (1006)"
        eventContinuation.yield(.closed(.abnormalClosure, reason: ""))
        fail(CurlewError(.webSocketClosed, "the server closed the connection \(during)", url: url),
             closeCode: nil, on: state, now: now)
    }

    /// Fails the connection: the opener or the consumer gets `error`; with `closeCode` (and an
    /// open connection) a close frame goes out and the server has until the close deadline to
    /// end the connection, otherwise it is dropped now.
    func fail(_ error: CurlewError, closeCode: WebSocketCloseCode?, on state: CurlLoopThreadState, now: ContinuousClock.Instant) {
        let loop = loopState
        finishOpening(.failure(error))
        endMessages(.failure(error))
        loop.discarding = true
        guard let closeCode, loop.stage == .open || loop.stage == .closing, loop.socket >= 0 else {
            tearDown(on: state, error: error)
            return
        }
        if !loop.closeSent { sendClose(closeCode, reason: "", now: now) }
        loop.stage = .closing
        loop.deadline = now + options.closeTimeout
        loop.readingStopped = false
        flush(on: state, now: now)
    }

    /// Lets go of the connection: out of the multi handle (libcurl closes a connect-only
    /// connection then), the handle freed, every waiter released.
    func tearDown(on state: CurlLoopThreadState, error: CurlewError? = nil) {
        let loop = loopState
        guard loop.stage != .done else { return }
        loop.stage = .done
        releaseConnection()
        loop.codec = nil
        loop.assembler = nil
        loop.decoder = nil
        state.removeWebSocket(self)
        let failure = error ?? CurlewError(.webSocketClosed, "the WebSocket is closed", url: url)
        finishOpening(.failure(failure))
        endMessages(.failure(CurlewError(.webSocketClosed, "the connection ended without a close frame (1006)", url: url)))
        let waiters = loop.writeWaiters
        loop.writeWaiters = []
        for waiter in waiters { waiter.continuation.resume(throwing: failure) }
        markTornDown(sendFailure: failure)
    }
}
