import Foundation
import HTTPTypes
import Synchronization

/// One WebSocket connection as the session's loop drives it, and the meeting point of the loop
/// and the tasks that use it.
///
/// Tasks reach it through ``Shared`` under a `Mutex`: they queue frames to send (``send(_:)``),
/// take received messages (``next()``), and ask the loop to look at the channel again through
/// its command queue (``CurlLoop/service(_:)``). Everything else — the easy handle, the socket,
/// the codec, the buffers — is the curl thread's (see `WebSocketChannel+Loop.swift`).
final class WebSocketChannel: @unchecked Sendable {
    // Safe: the `let`s never change; ``shared`` is behind its Mutex; every `var` declared in
    // the extensions' `LoopState` is touched by the curl thread only, after the loop took the
    // channel from its locked command queue (which orders the creating thread's writes first).

    /// A frame a task asked for, masked and (for data) compressed by the loop.
    enum Outgoing {
        case message(WebSocketMessage, CheckedContinuation<Void, any Error>)
        case ping(Data, CheckedContinuation<Void, any Error>)
        case close(WebSocketCloseCode, String)
    }

    /// What the handshake gave, for ``WebSocket``.
    struct Opened: Sendable {
        let response: HTTPResponse
        let subprotocol: String?
    }

    struct Shared {
        var openWaiter: CheckedContinuation<Opened, any Error>?
        var opened: Result<Opened, CurlewError>?
        var outbox: [Outgoing] = []
        /// Received messages not yet taken, oldest first from ``messageStart``.
        var messages: [WebSocketMessage] = []
        var messageStart = 0
        var bufferedBytes = 0
        var waiter: CheckedContinuation<WebSocketMessage?, any Error>?
        /// How the message stream ends, once the connection is over; messages received before
        /// still come first.
        var end: Result<Void, CurlewError>?
        /// Whether the loop stopped reading because ``bufferedBytes`` reached the limit.
        var readingStopped = false
        /// Whether ``close(code:reason:)`` was asked (once).
        var closeRequested = false
        /// Whether the loop let go of the connection; ``closeWaiters`` wait for it.
        var isTornDown = false
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
        /// The server's close frame, once it came.
        var serverClose: (code: WebSocketCloseCode, reason: String)?
        /// Why the connection must be dropped at once (a cancelled opener, a released socket).
        var abortReason: CurlewError?
    }

    /// The URL as the caller gave it (ws, wss or ws+unix), for errors.
    let url: URL
    /// The handshake request as the adapters left it, over http or https.
    let request: OutgoingRequest
    let handshake: WebSocketHandshake
    let options: WebSocketOptions
    /// The connect hop as a transfer context: proxy, Unix socket, trust policy and libcurl's
    /// error mapping work on it as they do for requests.
    let context: TransferContext
    let loop: CurlLoop
    let shared = Mutex(Shared())
    /// Events for ``WebSocket/events``: newest kept when nobody reads.
    let events: AsyncStream<WebSocketEvent>
    let eventContinuation: AsyncStream<WebSocketEvent>.Continuation
    /// State of the curl thread only.
    let loopState = WebSocketLoopState()

    init(url: URL, request: OutgoingRequest, handshake: WebSocketHandshake, options: WebSocketOptions,
         settings: TransferSettings, loop: CurlLoop) {
        self.url = url
        self.request = request
        self.handshake = handshake
        self.options = options
        self.loop = loop
        context = TransferContext(request: request, mode: .collect, settings: settings, reportsProgress: false)
        (events, eventContinuation) = AsyncStream.makeStream(of: WebSocketEvent.self, bufferingPolicy: .bufferingNewest(64))
    }

    // MARK: Opening

    /// Hands the channel to the loop and waits for the handshake's end.
    func open() async throws(CurlewError) -> Opened {
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Opened, any Error>) in
                    shared.withLock { $0.openWaiter = continuation }
                    if let refusal = loop.submit(self) { finishOpening(.failure(refusal)) }
                }
            } onCancel: {
                requestAbort(CurlewError(.taskCancelled, "the task opening the WebSocket was cancelled", url: url))
            }
        } catch {
            throw error as? CurlewError ?? CurlewError(.transport, "\(error)", url: url)
        }
    }

    /// Resumes the opener, once.
    func finishOpening(_ result: Result<Opened, CurlewError>) {
        let waiter = shared.withLock { shared -> CheckedContinuation<Opened, any Error>? in
            guard shared.opened == nil else { return nil }
            shared.opened = result
            defer { shared.openWaiter = nil }
            return shared.openWaiter
        }
        waiter?.resume(with: result.mapError { $0 as any Error })
    }

    /// Asks the loop to drop the connection with `error` (a cancelled opener, the session going).
    func requestAbort(_ error: CurlewError) {
        shared.withLock { shared in
            if shared.abortReason == nil { shared.abortReason = error }
        }
        loop.service(self)
    }

    // MARK: Sending

    func send(_ outgoing: (CheckedContinuation<Void, any Error>) -> Outgoing) async throws(CurlewError) {
        do {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let refusal = shared.withLock { shared -> CurlewError? in
                    if let end = shared.end, shared.isTornDown || shared.closeRequested {
                        if case .failure(let error) = end { return error }
                    }
                    if shared.closeRequested || shared.isTornDown {
                        return CurlewError(.webSocketClosed, "the WebSocket is closed; nothing more can be sent", url: url)
                    }
                    shared.outbox.append(outgoing(continuation))
                    return nil
                }
                if let refusal {
                    continuation.resume(throwing: refusal)
                } else {
                    loop.service(self)
                }
            }
        } catch {
            throw error as? CurlewError ?? CurlewError(.transport, "\(error)", url: url)
        }
    }

    /// Starts the closing handshake (once) and waits until the connection is gone.
    func close(code: WebSocketCloseCode, reason: String) async {
        let first = shared.withLock { shared -> Bool in
            guard !shared.closeRequested else { return false }
            shared.closeRequested = true
            shared.outbox.append(.close(code, reason))
            return true
        }
        if first { loop.service(self) }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = shared.withLock { shared -> Bool in
                if shared.isTornDown { return true }
                shared.closeWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Starts the closing handshake without waiting (a released ``WebSocket``, a cancelled consumer).
    func closeInBackground(code: WebSocketCloseCode) {
        let first = shared.withLock { shared -> Bool in
            guard !shared.closeRequested, !shared.isTornDown else { return false }
            shared.closeRequested = true
            shared.outbox.append(.close(code, ""))
            return true
        }
        if first { loop.service(self) }
    }

    // MARK: Receiving

    /// The next message; nil once the server closed normally.
    func next() async throws(CurlewError) -> WebSocketMessage? {
        enum Step { case message(WebSocketMessage, resumes: Bool), end(Result<Void, CurlewError>), wait, busy }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<WebSocketMessage?, any Error>) in
                    let step = shared.withLock { shared -> Step in
                        if let (message, resumes) = Self.take(&shared, limit: options.incomingBufferSize) {
                            return .message(message, resumes: resumes)
                        }
                        if let end = shared.end { return .end(end) }
                        guard shared.waiter == nil else { return .busy }
                        shared.waiter = continuation
                        return .wait
                    }
                    switch step {
                    case .message(let message, let resumes):
                        continuation.resume(returning: message)
                        if resumes { loop.service(self) }
                    case .end(.success): continuation.resume(returning: nil)
                    case .end(.failure(let error)): continuation.resume(throwing: error)
                    case .busy:
                        continuation.resume(throwing: CurlewError(
                            .streamAlreadyConsumed, "another task is already waiting for this WebSocket's next message", url: url))
                    case .wait: break
                    }
                }
            } onCancel: {
                consumerCancelled()
            }
        } catch {
            throw error as? CurlewError ?? CurlewError(.transport, "\(error)", url: url)
        }
    }

    /// The consuming task was cancelled: its wait ends, and the connection closes (1001).
    func consumerCancelled() {
        let waiter = shared.withLock { shared -> CheckedContinuation<WebSocketMessage?, any Error>? in
            defer { shared.waiter = nil }
            return shared.waiter
        }
        waiter?.resume(throwing: CurlewError(.taskCancelled, "the task reading the WebSocket was cancelled", url: url))
        closeInBackground(code: .goingAway)
    }

    /// Takes the oldest message; `resumes` when that made room for a stopped reader.
    private static func take(_ shared: inout Shared, limit: Int) -> (WebSocketMessage, Bool)? {
        guard shared.messageStart < shared.messages.count else { return nil }
        let message = shared.messages[shared.messageStart]
        shared.messageStart += 1
        if shared.messageStart == shared.messages.count {
            shared.messages.removeAll(keepingCapacity: shared.messages.capacity <= 64)
            shared.messageStart = 0
        } else if shared.messageStart >= 64 {
            shared.messages.removeFirst(shared.messageStart)
            shared.messageStart = 0
        }
        shared.bufferedBytes -= message.byteCount
        var resumes = false
        if shared.readingStopped, shared.bufferedBytes < limit {
            shared.readingStopped = false
            resumes = true
        }
        return (message, resumes)
    }

    /// From the loop: a message for the consumer. Returns false when the buffer is now full
    /// and reading must stop.
    func deliver(_ message: WebSocketMessage) -> Bool {
        let (waiter, hasRoom) = shared.withLock { shared -> (CheckedContinuation<WebSocketMessage?, any Error>?, Bool) in
            if let waiter = shared.waiter {
                shared.waiter = nil
                return (waiter, true)
            }
            shared.messages.append(message)
            shared.bufferedBytes += message.byteCount
            if shared.bufferedBytes >= options.incomingBufferSize {
                shared.readingStopped = true
                return (nil, false)
            }
            return (nil, true)
        }
        waiter?.resume(returning: message)
        return hasRoom
    }

    /// From the loop: the message stream's end (the first one counts).
    func endMessages(_ end: Result<Void, CurlewError>) {
        let waiter = shared.withLock { shared -> CheckedContinuation<WebSocketMessage?, any Error>? in
            guard shared.end == nil else { return nil }
            shared.end = end
            guard shared.messageStart >= shared.messages.count else { return nil }
            defer { shared.waiter = nil }
            return shared.waiter
        }
        switch end {
        case .success: waiter?.resume(returning: nil)
        case .failure(let error): waiter?.resume(throwing: error)
        }
    }

    /// From the loop: the connection is gone; close waiters and pending sends are released.
    func markTornDown(sendFailure: CurlewError) {
        let (waiters, outbox) = shared.withLock { shared -> ([CheckedContinuation<Void, Never>], [Outgoing]) in
            shared.isTornDown = true
            defer {
                shared.closeWaiters.removeAll()
                shared.outbox.removeAll()
            }
            return (shared.closeWaiters, shared.outbox)
        }
        for item in outbox {
            switch item {
            case .message(_, let continuation), .ping(_, let continuation): continuation.resume(throwing: sendFailure)
            case .close: break
            }
        }
        eventContinuation.finish()
        for waiter in waiters { waiter.resume() }
    }

    /// The server's close frame, once it came.
    var serverClose: (code: WebSocketCloseCode, reason: String)? { shared.withLock { $0.serverClose } }
}
