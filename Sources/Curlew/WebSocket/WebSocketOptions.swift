import Foundation

/// Limits and behaviour of one WebSocket connection; see ``Session/webSocket(_:protocols:headers:options:)``.
public struct WebSocketOptions: Sendable, Hashable {
    /// The largest message accepted, in bytes (after inflating); a larger one fails the
    /// connection with close code 1009 and ``CurlewError/Kind/bodyTooLarge``. 16 MiB.
    public var maximumMessageSize: Int = 16 << 20
    /// The largest frame accepted, in bytes, refused as soon as its header arrives. 16 MiB.
    public var maximumFrameSize: Int = 16 << 20
    /// How many bytes of received messages may wait for the consumer; while more wait, Curlew
    /// stops reading the socket, so a server that keeps sending meets TCP's flow control.
    /// One message larger than this is still delivered. 1 MiB.
    public var incomingBufferSize: Int = 1 << 20
    /// permessage-deflate (RFC 7692), offered unless nil; the server decides.
    public var compression: WebSocketCompression? = WebSocketCompression()
    /// Sends a ping this long after the last frame received, to keep the connection and any
    /// proxy on the way alive and to notice a dead peer; nil sends none.
    public var pingInterval: Duration?
    /// Fails the connection (``CurlewError/Kind/idleTimeout``) when nothing arrives from the
    /// server for this long; nil waits forever. With ``pingInterval`` shorter, a live server
    /// answers the pings and so never looks idle.
    public var idleTimeout: Duration?
    /// How long connecting, TLS and the handshake may take. 30 s.
    public var openTimeout: Duration = .seconds(30)
    /// How long ``WebSocket/close(code:reason:)`` waits for the server's close frame and for
    /// the server to end the connection. 5 s.
    public var closeTimeout: Duration = .seconds(5)
    /// How long a send may wait for a server that takes no bytes before the connection fails
    /// (``CurlewError/Kind/idleTimeout``). 30 s.
    public var sendTimeout: Duration = .seconds(30)

    /// The defaults.
    public init() {}

    /// Checks the limits; a zero or negative one is an ``CurlewError/Kind/invalidRequest``.
    func validate(url: URL?) throws(CurlewError) {
        for (name, value) in [
            ("maximumMessageSize", maximumMessageSize), ("maximumFrameSize", maximumFrameSize),
            ("incomingBufferSize", incomingBufferSize),
        ] where value <= 0 {
            throw CurlewError(.invalidRequest, "WebSocketOptions.\(name) must be positive, not \(value)", url: url)
        }
        for (name, value) in [
            ("pingInterval", pingInterval), ("idleTimeout", idleTimeout), ("openTimeout", openTimeout),
            ("closeTimeout", closeTimeout), ("sendTimeout", sendTimeout),
        ] {
            if let value, value <= .zero {
                throw CurlewError(.invalidRequest, "WebSocketOptions.\(name) must be positive, not \(value)", url: url)
            }
        }
    }
}
