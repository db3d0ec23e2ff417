/// The status code of a WebSocket close frame (RFC 6455 §7.4).
///
/// A struct rather than an enum: applications may use any code from 3000 to 4999, and the
/// registry grows.
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code as sent on the wire.
    public let rawValue: UInt16

    /// A close code; whether it may be sent is checked when it is used.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// 1000: the purpose of the connection is fulfilled.
    public static let normalClosure = WebSocketCloseCode(rawValue: 1000)
    /// 1001: an endpoint is going away (a server shutting down, a client leaving).
    public static let goingAway = WebSocketCloseCode(rawValue: 1001)
    /// 1002: an endpoint broke the protocol.
    public static let protocolError = WebSocketCloseCode(rawValue: 1002)
    /// 1003: an endpoint received a kind of data it cannot accept.
    public static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
    /// 1005: the close frame had no code. Never sent; reported when a peer's close had none.
    public static let noStatusReceived = WebSocketCloseCode(rawValue: 1005)
    /// 1006: the connection ended without a close frame. Never sent.
    public static let abnormalClosure = WebSocketCloseCode(rawValue: 1006)
    /// 1007: a message's data did not match its type (text that is not UTF-8).
    public static let invalidFramePayloadData = WebSocketCloseCode(rawValue: 1007)
    /// 1008: a message broke the endpoint's policy.
    public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
    /// 1009: a message or frame was larger than the endpoint accepts.
    public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
    /// 1010: the client needed an extension the server did not negotiate.
    public static let mandatoryExtension = WebSocketCloseCode(rawValue: 1010)
    /// 1011: the server met an unexpected condition.
    public static let internalServerError = WebSocketCloseCode(rawValue: 1011)

    public var description: String { "\(rawValue)" }

    /// Whether a peer may put this code in a close frame (RFC 6455 §7.4.1 and §7.4.2, and the
    /// IANA registry's 1012–1014): 1000–1003, 1007–1014, and 3000–4999. 1004 is reserved; 1005,
    /// 1006 and 1015 stand for conditions and are never sent; the rest of 0–2999 is unassigned.
    var mayBeSent: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }
}
