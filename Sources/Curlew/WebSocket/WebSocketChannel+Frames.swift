import Foundation
import HTTPTypes

/// The curl thread's handling of what arrives (the response head, then frames) and of what
/// the tasks asked to send.
extension WebSocketChannel {
    /// Bytes read from the socket.
    func receive(_ bytes: UnsafeRawBufferPointer, on state: CurlLoopThreadState, now: ContinuousClock.Instant) {
        let loop = loopState
        switch loop.stage {
        case .handshaking:
            loop.head.append(contentsOf: bytes)
            readHead(on: state, now: now)
        case .open, .closing:
            guard !loop.discarding, loop.decoder != nil else { return }
            loop.decoder?.append(bytes)
            readFrames(on: state, now: now)
        case .waiting, .connecting, .done:
            break
        }
    }

    /// Reads the response head once its blank line is in; what follows it is frames.
    private func readHead(on state: CurlLoopThreadState, now: ContinuousClock.Instant) {
        let loop = loopState
        guard let end = Self.headEnd(loop.head) else {
            if loop.head.count > TransferContext.maximumHeaderBytes {
                fail(CurlewError(.webSocketHandshakeFailed,
                                 "the server's handshake response head exceeds \(TransferContext.maximumHeaderBytes >> 10) KiB", url: url),
                     closeCode: nil, on: state, now: now)
            }
            return
        }
        var parser = ResponseHeadParser()
        let reading = loop.head.withUnsafeBytes { parser.read(UnsafeRawBufferPointer(rebasing: $0[0..<end])) }
        guard reading == .ended, parser.sawStatusLine else {
            fail(CurlewError(.webSocketHandshakeFailed, "the server's answer to the WebSocket handshake is not an HTTP response head", url: url),
                 closeCode: nil, on: state, now: now)
            return
        }
        let response = parser.takeHead().response
        let rest = Array(loop.head[end...])
        loop.head = []
        if let storage = context.settings.cookieStorage {
            let cookies = response.headerFields[values: .setCookie]
            if !cookies.isEmpty { storage.storeCookies(setCookieFields: cookies, for: request.url) }
        }
        guard response.status.code == 101 else {
            var message = "the server answered the WebSocket handshake with \(response.status.code) \(response.status.reasonPhrase) instead of 101 Switching Protocols"
            if (300..<400).contains(response.status.code) {
                message += "; redirects are not followed for WebSockets"
                if let location = response.headerFields[.location] { message += " (Location: \(Redaction.string(String(location.prefix(200)))))" }
            }
            fail(CurlewError(.webSocketHandshakeFailed, message, url: url, responseHead: response), closeCode: nil, on: state, now: now)
            return
        }
        let agreement: WebSocketHandshake.Agreement
        do {
            agreement = try handshake.validate(response)
        } catch {
            fail(CurlewError(.webSocketHandshakeFailed, error.message, url: url, responseHead: response),
                 closeCode: nil, on: state, now: now)
            return
        }
        if let compression = agreement.compression { loop.codec = WebSocketDeflateCodec(compression) }
        loop.decoder = WebSocketFrameDecoder(maximumFrameSize: options.maximumFrameSize, allowsCompression: loop.codec != nil)
        loop.assembler = WebSocketMessageAssembler(maximumMessageSize: options.maximumMessageSize, codec: loop.codec)
        loop.stage = .open
        loop.deadline = nil
        loop.lastPing = now
        finishOpening(.success(Opened(response: response, subprotocol: agreement.subprotocol)))
        // Frames the server sent right behind its head, and anything asked meanwhile.
        if !rest.isEmpty { rest.withUnsafeBytes { receive($0, on: state, now: now) } }
        service(on: state, now: now)
    }

    /// Where the head ends (after its blank line), if it does.
    static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index + 4
        }
        return nil
    }

    private func readFrames(on state: CurlLoopThreadState, now: ContinuousClock.Instant) {
        let loop = loopState
        while !loop.discarding, loop.stage == .open || loop.stage == .closing {
            let frame: WebSocketFrame?
            do {
                frame = try loop.decoder?.next()
            } catch {
                violated(error, on: state, now: now)
                return
            }
            guard let frame else { break }
            if loop.closeReceived { continue }
            switch frame.opcode {
            case .ping:
                if !loop.closeSent { sendControl(.pong, payload: frame.payload, now: now) }
                eventContinuation.yield(.pingReceived(Data(frame.payload)))
            case .pong:
                eventContinuation.yield(.pongReceived(Data(frame.payload)))
            case .close:
                closeReceived(frame.payload, on: state, now: now)
            case .text, .binary, .continuation:
                let message: WebSocketMessageAssembler.Message?
                do {
                    message = try loop.assembler?.take(frame)
                } catch {
                    violated(error, on: state, now: now)
                    return
                }
                switch message {
                case .text(let bytes)?:
                    if !deliver(.text(String(decoding: bytes, as: UTF8.self))) { loop.readingStopped = true }
                case .binary(let bytes)?:
                    if !deliver(.binary(Data(bytes))) { loop.readingStopped = true }
                case nil:
                    break
                }
            }
        }
        flush(on: state, now: now)
    }

    private func violated(_ violation: WebSocketViolation, on state: CurlLoopThreadState, now: ContinuousClock.Instant) {
        fail(CurlewError(violation.kind, violation.message, url: url), closeCode: violation.code, on: state, now: now)
    }

    /// The server's close frame (§5.5.1): checked, answered (unless Curlew closed first), and
    /// the end of the message stream.
    private func closeReceived(_ payload: [UInt8], on state: CurlLoopThreadState, now: ContinuousClock.Instant) {
        let loop = loopState
        var code = WebSocketCloseCode.noStatusReceived
        var reason = ""
        if payload.count == 1 {
            violated(WebSocketViolation(.protocolError, "the server's close frame has a 1-byte payload (a code takes 2)"), on: state, now: now)
            return
        }
        if payload.count >= 2 {
            code = WebSocketCloseCode(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1]))
            guard code.mayBeSent else {
                violated(WebSocketViolation(.protocolError, "the server closed with the code \(code.rawValue), which may not be sent"),
                         on: state, now: now)
                return
            }
            var validator = UTF8Validator()
            let reasonBytes = Array(payload[2...])
            guard validator.validate(reasonBytes), validator.isComplete else {
                violated(WebSocketViolation(.invalidFramePayloadData, "the server's close reason is not valid UTF-8"), on: state, now: now)
                return
            }
            reason = String(decoding: reasonBytes, as: UTF8.self)
        }
        loop.closeReceived = true
        shared.withLock { $0.serverClose = (code, reason) }
        eventContinuation.yield(.closed(code, reason: reason))
        let closedByUs = loop.closeSent
        if !loop.closeSent { sendClose(code == .noStatusReceived ? nil : code, reason: "", now: now) }
        loop.stage = .closing
        loop.deadline = now + options.closeTimeout
        if closedByUs || [.normalClosure, .goingAway, .noStatusReceived].contains(code) {
            endMessages(.success(()))
        } else {
            let shown = reason.isEmpty ? "" : ": \(reason.prefix(123))"
            endMessages(.failure(CurlewError(.webSocketClosed, "the server closed the WebSocket with code \(code.rawValue)\(shown)", url: url)))
        }
        flush(on: state, now: now)
    }

    /// Masks and queues a control frame.
    func sendControl(_ opcode: WebSocketOpcode, payload: [UInt8], waiter: CheckedContinuation<Void, any Error>? = nil, now: ContinuousClock.Instant) {
        var frame: [UInt8] = []
        let key = WebSocketFrame.randomMaskingKey(using: &loopState.random)
        payload.withUnsafeBytes { WebSocketFrame.encode(opcode, payload: $0, maskingKey: key, into: &frame) }
        queue(frame, waiter: waiter, now: now)
    }

    /// Queues a close frame with `code` (none for nil) and `reason` cut to fit 125 bytes.
    func sendClose(_ code: WebSocketCloseCode?, reason: String, now: ContinuousClock.Instant) {
        var payload: [UInt8] = []
        if let code {
            payload = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
            var reasonBytes = Array(reason.utf8.prefix(123))
            // Never cut a character in two.
            while !reasonBytes.isEmpty, String(validating: reasonBytes, as: UTF8.self) == nil { reasonBytes.removeLast() }
            payload += reasonBytes
        }
        loopState.closeSent = true
        sendControl(.close, payload: payload, now: now)
    }

    /// Takes what the tasks asked for — frames to send, a close, an abort, room to read again —
    /// and writes and reads as far as the socket allows.
    func service(on state: CurlLoopThreadState, now: ContinuousClock.Instant) {
        let loop = loopState
        if loop.stage == .waiting {
            if let failure = start(on: state, now: now) {
                finishOpening(.failure(failure))
                endMessages(.failure(failure))
                loop.stage = .done
                state.removeWebSocket(self)
                markTornDown(sendFailure: failure)
                return
            }
        }
        let (items, abort, resumeReading) = shared.withLock { shared -> ([Outgoing], CurlewError?, Bool) in
            defer { shared.outbox.removeAll() }
            return (shared.outbox, shared.abortReason, !shared.readingStopped)
        }
        if let abort, loop.stage == .connecting || loop.stage == .handshaking {
            fail(abort, closeCode: nil, on: state, now: now)
        }
        for item in items {
            switch item {
            case .message(let message, let continuation):
                guard loop.stage == .open, !loop.closeSent else {
                    continuation.resume(throwing: CurlewError(.webSocketClosed, "the WebSocket is closed; the message was not sent", url: url))
                    continue
                }
                queueMessage(message, waiter: continuation, now: now)
            case .ping(let payload, let continuation):
                guard loop.stage == .open, !loop.closeSent else {
                    continuation.resume(throwing: CurlewError(.webSocketClosed, "the WebSocket is closed; the ping was not sent", url: url))
                    continue
                }
                loop.lastPing = now
                sendControl(.ping, payload: Array(payload), waiter: continuation, now: now)
            case .close(let code, let reason):
                switch loop.stage {
                case .waiting, .connecting, .handshaking:
                    fail(CurlewError(.cancelled, "the WebSocket was closed before it opened", url: url), closeCode: nil, on: state, now: now)
                case .open:
                    sendClose(code, reason: reason, now: now)
                    loop.stage = .closing
                    loop.deadline = now + options.closeTimeout
                case .closing, .done:
                    break
                }
            }
        }
        if let abort, loop.stage == .open {
            fail(abort, closeCode: .goingAway, on: state, now: now)
        }
        flush(on: state, now: now)
        if resumeReading, loop.readingStopped, loop.stage == .open || loop.stage == .closing {
            loop.readingStopped = false
            // TLS may hold decrypted bytes that no poll reports: read at once.
            read(on: state, now: now)
        }
    }

    /// Compresses (when negotiated), frames, masks and queues a message.
    private func queueMessage(_ message: WebSocketMessage, waiter: CheckedContinuation<Void, any Error>, now: ContinuousClock.Instant) {
        let loop = loopState
        let opcode: WebSocketOpcode
        var payload: [UInt8]
        switch message {
        case .text(let text):
            opcode = .text
            payload = Array(text.utf8)
        case .binary(let data):
            opcode = .binary
            payload = Array(data)
        }
        var compressed = false
        if let codec = loop.codec {
            if let deflated = payload.withUnsafeBytes({ codec.compress($0) }) {
                payload = deflated
                compressed = true
            }
        }
        var frame: [UInt8] = []
        let key = WebSocketFrame.randomMaskingKey(using: &loop.random)
        payload.withUnsafeBytes {
            WebSocketFrame.encode(opcode, payload: $0, isCompressed: compressed, maskingKey: key, into: &frame)
        }
        queue(frame, waiter: waiter, now: now)
    }
}
