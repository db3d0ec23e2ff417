/// Joins data frames into messages (RFC 6455 §5.4): a text or binary frame starts a message,
/// continuation frames extend it, the final one ends it. Control frames never come here; the
/// connection answers them between fragments.
///
/// Text is checked as UTF-8 frame by frame, so an invalid message fails at its first bad frame
/// rather than at its end; a message is limited to ``maximumMessageSize`` bytes (after
/// inflating, for a compressed one).
struct WebSocketMessageAssembler {
    /// A finished message.
    enum Message: Equatable {
        case text([UInt8])
        case binary([UInt8])
    }

    let maximumMessageSize: Int
    /// Inflates compressed messages; nil when permessage-deflate was not negotiated.
    let codec: WebSocketDeflateCodec?
    /// The opcode of the message in progress; nil between messages.
    private var opcode: WebSocketOpcode?
    private var isCompressed = false
    private var bytes: [UInt8] = []
    private var validator = UTF8Validator()

    init(maximumMessageSize: Int, codec: WebSocketDeflateCodec?) {
        self.maximumMessageSize = maximumMessageSize
        self.codec = codec
    }

    /// Whether a fragmented message is in progress.
    var isInMessage: Bool { opcode != nil }

    /// Bytes held for the message in progress.
    var bufferedCount: Int { bytes.count }

    /// Takes a data frame; returns the message it completes, if it does.
    mutating func take(_ frame: WebSocketFrame) throws(WebSocketViolation) -> Message? {
        switch frame.opcode {
        case .continuation:
            guard opcode != nil else {
                throw WebSocketViolation(.protocolError, "the server sent a continuation frame outside a fragmented message")
            }
            if frame.isCompressed {
                throw WebSocketViolation(.protocolError, "the server set RSV1 on a continuation frame (RFC 7692 §6.1)")
            }
        case .text, .binary:
            guard opcode == nil else {
                throw WebSocketViolation(.protocolError, "the server started a new message before finishing a fragmented one")
            }
            opcode = frame.opcode
            isCompressed = frame.isCompressed
            validator = UTF8Validator()
        case .close, .ping, .pong:
            // The connection answers control frames itself and never passes one here.
            throw WebSocketViolation(.internalServerError, "a control frame reached the message assembler")
        }
        if isCompressed, let codec {
            var inflated: [UInt8] = []
            try codec.decompress(frame.payload, isLast: frame.isFinal, limit: maximumMessageSize, into: &inflated)
            try append(inflated)
        } else {
            try append(frame.payload)
        }
        guard frame.isFinal else { return nil }
        defer {
            opcode = nil
            bytes = []
        }
        if opcode == .text {
            guard validator.isComplete else {
                throw WebSocketViolation(.invalidFramePayloadData, "the server's text message ends inside a UTF-8 sequence")
            }
            return .text(bytes)
        }
        return .binary(bytes)
    }

    private mutating func append(_ piece: [UInt8]) throws(WebSocketViolation) {
        guard piece.count <= maximumMessageSize - bytes.count else {
            throw WebSocketViolation(
                .messageTooBig, "the server's message is larger than the maximum message size of \(maximumMessageSize) bytes")
        }
        if opcode == .text, !validator.validate(piece) {
            throw WebSocketViolation(.invalidFramePayloadData, "the server's text message is not valid UTF-8")
        }
        if bytes.isEmpty { bytes = piece } else { bytes.append(contentsOf: piece) }
    }
}
