/// A peer's breach of RFC 6455 or RFC 7692, found by the frame decoder, the message assembler
/// or the handshake: the close code the connection fails with (§7.4.1) and what happened.
struct WebSocketViolation: Error, Equatable, Sendable {
    /// The code of the close frame Curlew sends before it drops the connection.
    let code: WebSocketCloseCode
    /// What the server did, for the error's message.
    let message: String
    /// The kind of the error the connection fails with.
    let kind: CurlewError.Kind

    init(_ code: WebSocketCloseCode, _ message: String, kind: CurlewError.Kind? = nil) {
        self.code = code
        self.message = message
        self.kind = kind ?? (code == .messageTooBig ? .bodyTooLarge : .webSocketProtocolError)
    }
}
