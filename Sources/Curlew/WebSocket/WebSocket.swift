import Foundation
import HTTPTypes

/// An open WebSocket connection (RFC 6455), made by
/// ``Session/webSocket(_:protocols:headers:options:)``.
///
/// ```swift
/// let socket = try await session.webSocket("wss://chat.example.com/room/1")
/// try await socket.send(text: "hello")
/// for try await message in socket.messages {
///     if case .text(let text) = message { print(text) }
/// }
/// ```
///
/// The session's own thread drives the connection: no thread is added per socket, and no task
/// blocks. Messages arrive whole (fragments joined, text checked as UTF-8, compressed ones
/// inflated); pings are answered by Curlew and shown in ``events``. While
/// ``WebSocketOptions/incomingBufferSize`` bytes of messages wait unread, Curlew stops reading
/// the socket, so a server that keeps sending meets TCP's flow control. Cancelling the task
/// that reads ``messages`` closes the connection (code 1001), and so does releasing the object.
public final class WebSocket: Sendable {
    /// The server's `101 Switching Protocols` response.
    public let response: HTTPResponse
    /// The subprotocol the server chose among those offered; nil when none.
    public let subprotocol: String?
    private let channel: WebSocketChannel

    init(channel: WebSocketChannel, opened: WebSocketChannel.Opened) {
        self.channel = channel
        response = opened.response
        subprotocol = opened.subprotocol
    }

    deinit {
        channel.closeInBackground(code: .goingAway)
    }

    /// The messages the server sends, in order; each access makes a stream that reads the same
    /// connection, and one task at a time may wait for the next message.
    ///
    /// The stream finishes when the server closes with 1000 (normal), 1001 (going away) or no
    /// code, or after ``close(code:reason:)``. It throws a ``CurlewError``: of kind
    /// ``CurlewError/Kind/webSocketClosed`` for another close code or a connection that ended
    /// without a close frame, ``CurlewError/Kind/webSocketProtocolError`` for a server that broke
    /// the protocol (Curlew sent the close code RFC 6455 names, 1002 or 1007), and
    /// ``CurlewError/Kind/bodyTooLarge`` for a message or frame over the limits (1009). The
    /// stream keeps the socket alive while it is iterated.
    public var messages: AsyncThrowingStream<WebSocketMessage, any Error> {
        let watch = CancellationWatch(channel: channel)
        return AsyncThrowingStream { [self, watch] in
            _ = watch  // Held by the closure, so released with it.
            return try await channel.next()
        }
    }

    /// Closes the connection when a task that was cancelled before it waited lets go of the
    /// stream: such a stream never calls its closure (it drops it at once, and this with it,
    /// inside the cancelled task), so ``WebSocketChannel/next()`` cannot see the cancellation.
    /// A cancellation during a wait reaches ``WebSocketChannel/next()`` itself.
    private final class CancellationWatch: Sendable {
        let channel: WebSocketChannel
        init(channel: WebSocketChannel) { self.channel = channel }
        deinit {
            if Task.isCancelled { channel.consumerCancelled() }
        }
    }

    /// Pings and pongs received, and the close, as they happen. Buffers the newest 64 events
    /// while nobody reads; one task may iterate it.
    public var events: AsyncStream<WebSocketEvent> { channel.events }

    /// Sends a text message; returns once the socket took it. See ``send(_:)``.
    public func send(text: String) async throws(CurlewError) {
        try await send(.text(text))
    }

    /// Sends a binary message; returns once the socket took it. See ``send(_:)``.
    public func send(data: Data) async throws(CurlewError) {
        try await send(.binary(data))
    }

    /// Sends a message as one frame, masked with a fresh random key and compressed when
    /// permessage-deflate was negotiated; returns once the socket took it. Throws
    /// ``CurlewError/Kind/webSocketClosed`` after a close, and ``CurlewError/Kind/idleTimeout``
    /// when the server takes no bytes for ``WebSocketOptions/sendTimeout``.
    public func send(_ message: WebSocketMessage) async throws(CurlewError) {
        try await channel.send { .message(message, $0) }
    }

    /// Sends a ping with up to 125 bytes of `payload`; the pong shows in ``events``.
    public func ping(_ payload: Data = Data()) async throws(CurlewError) {
        guard payload.count <= 125 else {
            throw CurlewError(.invalidRequest, "a ping carries at most 125 bytes, not \(payload.count)", url: channel.url)
        }
        try await channel.send { .ping(payload, $0) }
    }

    /// Closes the connection with the closing handshake: sends a close frame with `code` and
    /// `reason` (cut to 123 bytes of UTF-8), waits for the server's close frame and for the
    /// server to end the connection, at most ``WebSocketOptions/closeTimeout``, then lets go of
    /// the socket. Later calls wait for the same end. `code` must be one an endpoint may send
    /// (1000–1003, 1007–1014, 3000–4999); another is sent as 1000.
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") async {
        await channel.close(code: code.mayBeSent ? code : .normalClosure, reason: reason)
    }

    /// The code of the server's close frame, once it came (``WebSocketCloseCode/noStatusReceived``
    /// for a close frame without one).
    public var closeCode: WebSocketCloseCode? { channel.serverClose?.code }
    /// The reason in the server's close frame, once it came.
    public var closeReason: String? { channel.serverClose?.reason }
}
