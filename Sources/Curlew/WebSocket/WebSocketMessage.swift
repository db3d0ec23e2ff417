import Foundation

/// A complete WebSocket message: text or binary, however many frames carried it.
public enum WebSocketMessage: Sendable, Hashable {
    /// A text message (valid UTF-8; Curlew checks every incoming one).
    case text(String)
    /// A binary message.
    case binary(Data)

    /// The message's payload size in bytes.
    var byteCount: Int {
        switch self {
        case .text(let text): text.utf8.count
        case .binary(let data): data.count
        }
    }
}

/// What happens on a WebSocket besides its messages, in ``WebSocket/events``.
public enum WebSocketEvent: Sendable, Hashable {
    /// The server pinged; Curlew answered with a pong carrying the same payload.
    case pingReceived(Data)
    /// A pong arrived (an answer to ``WebSocket/ping(_:)`` or a keep-alive ping, or unsolicited).
    case pongReceived(Data)
    /// The connection closed: the server's close code and reason (``WebSocketCloseCode/abnormalClosure``
    /// when it ended without a close frame).
    case closed(WebSocketCloseCode, reason: String)
}
