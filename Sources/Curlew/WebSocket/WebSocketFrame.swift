/// One WebSocket frame (RFC 6455 §5.2), unmasked.
struct WebSocketFrame: Equatable, Sendable {
    /// Whether this is the last frame of its message.
    var isFinal: Bool
    /// RSV1: the message is compressed (RFC 7692), on its first frame only.
    var isCompressed: Bool
    var opcode: WebSocketOpcode
    var payload: [UInt8]

    init(_ opcode: WebSocketOpcode, _ payload: [UInt8], isFinal: Bool = true, isCompressed: Bool = false) {
        self.opcode = opcode
        self.payload = payload
        self.isFinal = isFinal
        self.isCompressed = isCompressed
    }

    /// The frame as a client sends it: masked with `key` (RFC 6455 §5.3), appended to `output`.
    static func encode(
        _ opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer, isFinal: Bool = true, isCompressed: Bool = false,
        maskingKey key: (UInt8, UInt8, UInt8, UInt8), into output: inout [UInt8]
    ) {
        var first = opcode.rawValue
        if isFinal { first |= 0x80 }
        if isCompressed { first |= 0x40 }
        output.reserveCapacity(output.count + payload.count + 14)
        output.append(first)
        let count = payload.count
        if count < 126 {
            output.append(0x80 | UInt8(count))
        } else if count <= 0xFFFF {
            output.append(0x80 | 126)
            output.append(UInt8(count >> 8))
            output.append(UInt8(count & 0xFF))
        } else {
            output.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { output.append(UInt8((UInt64(count) >> UInt64(shift)) & 0xFF)) }
        }
        output.append(key.0)
        output.append(key.1)
        output.append(key.2)
        output.append(key.3)
        let start = output.count
        output.append(contentsOf: payload)
        output.withUnsafeMutableBytes { bytes in
            WebSocketFrame.mask(UnsafeMutableRawBufferPointer(rebasing: bytes[start...]), key: key)
        }
    }

    /// XORs `bytes` with the masking key, as both masking and unmasking do.
    static func mask(_ bytes: UnsafeMutableRawBufferPointer, key: (UInt8, UInt8, UInt8, UInt8)) {
        let count = bytes.count
        guard count > 0 else { return }
        // Eight bytes at a time: the key repeats every four, so a word of two keys masks eight.
        let keyWord = UInt64(key.0) | UInt64(key.1) << 8 | UInt64(key.2) << 16 | UInt64(key.3) << 24
        let word = keyWord | keyWord << 32
        var index = 0
        while index + 8 <= count {
            let value = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            bytes.storeBytes(of: value ^ word.littleEndian, toByteOffset: index, as: UInt64.self)
            index += 8
        }
        let keys = [key.0, key.1, key.2, key.3]
        while index < count {
            bytes[index] ^= keys[index & 3]
            index += 1
        }
    }

    /// A fresh masking key from the system's random source (RFC 6455 §5.3: unpredictable, new
    /// for every frame).
    static func randomMaskingKey<Generator: RandomNumberGenerator>(
        using generator: inout Generator
    ) -> (UInt8, UInt8, UInt8, UInt8) {
        let value = generator.next() as UInt32
        return (UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF), UInt8((value >> 16) & 0xFF), UInt8(value >> 24))
    }
}
