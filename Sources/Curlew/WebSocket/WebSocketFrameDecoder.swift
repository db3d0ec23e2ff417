/// Cuts the bytes a server sends into frames (RFC 6455 §5.2), a read at a time.
///
/// It refuses, with the close code §7.4.1 names: reserved opcodes, RSV2 and RSV3, RSV1 unless
/// permessage-deflate was negotiated, masked frames (a server never masks, §5.1), control
/// frames that are fragmented or longer than 125 bytes, a length with its top bit set, and
/// any frame longer than ``maximumFrameSize`` — as soon as its header arrives, before a byte
/// of its payload is kept.
struct WebSocketFrameDecoder: Sendable {
    /// The longest payload a frame may declare.
    let maximumFrameSize: Int
    /// Whether RSV1 may be set (permessage-deflate was negotiated).
    let allowsCompression: Bool
    /// Bytes received and not yet cut into frames, from ``start``.
    private var buffer: [UInt8] = []
    private var start = 0

    init(maximumFrameSize: Int, allowsCompression: Bool) {
        self.maximumFrameSize = maximumFrameSize
        self.allowsCompression = allowsCompression
    }

    /// How many bytes are held for a frame not complete yet.
    var bufferedCount: Int { buffer.count - start }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if start > 0, start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 64 << 10)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// The next complete frame, or nil until more bytes arrive.
    mutating func next() throws(WebSocketViolation) -> WebSocketFrame? {
        let available = buffer.count - start
        guard available >= 2 else { return nil }
        let first = buffer[start]
        let second = buffer[start + 1]
        let isFinal = first & 0x80 != 0
        let isCompressed = first & 0x40 != 0
        if first & 0x30 != 0 {
            throw WebSocketViolation(.protocolError, "the server set a reserved bit (RSV2 or RSV3) no extension defines")
        }
        if isCompressed && !allowsCompression {
            throw WebSocketViolation(.protocolError, "the server set RSV1, but no extension that uses it was negotiated")
        }
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
            throw WebSocketViolation(.protocolError, "the server sent a frame with the reserved opcode \(first & 0x0F)")
        }
        if second & 0x80 != 0 {
            throw WebSocketViolation(.protocolError, "the server sent a masked frame (RFC 6455 §5.1: servers never mask)")
        }
        var headerLength = 2
        var length = UInt64(second & 0x7F)
        if length == 126 {
            guard available >= 4 else { return nil }
            length = UInt64(buffer[start + 2]) << 8 | UInt64(buffer[start + 3])
            headerLength = 4
        } else if length == 127 {
            guard available >= 10 else { return nil }
            length = 0
            for index in 2..<10 { length = length << 8 | UInt64(buffer[start + index]) }
            guard length & (1 << 63) == 0 else {
                throw WebSocketViolation(.protocolError, "the server sent a frame length with its most significant bit set")
            }
            headerLength = 10
        }
        if opcode.isControl {
            guard isFinal else {
                throw WebSocketViolation(.protocolError, "the server fragmented a control frame (opcode \(opcode.rawValue))")
            }
            guard length <= 125 else {
                throw WebSocketViolation(.protocolError, "the server sent a control frame of \(length) bytes; at most 125 are allowed")
            }
            if isCompressed {
                throw WebSocketViolation(.protocolError, "the server set RSV1 on a control frame")
            }
        }
        guard length <= UInt64(maximumFrameSize) else {
            throw WebSocketViolation(
                .messageTooBig, "the server sent a frame of \(length) bytes, more than the maximum frame size of \(maximumFrameSize)")
        }
        let total = headerLength + Int(length)
        guard available >= total else { return nil }
        let payload = Array(buffer[(start + headerLength)..<(start + total)])
        start += total
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 64 << 10)
            start = 0
        } else if start > 64 << 10, start * 2 > buffer.count {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        return WebSocketFrame(opcode, payload, isFinal: isFinal, isCompressed: isCompressed)
    }
}
