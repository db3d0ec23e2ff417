import NIOCore

/// The deterministic body of `/bytes` and `/stream-bytes`: byte `i` is `UInt8((i + seed) % 251)`.
///
/// 251 is prime, so the pattern never lines up with power-of-two buffer sizes and a dropped,
/// repeated or reordered chunk changes the bytes. Pieces are zero-copy slices of one shared buffer.
enum BytePattern {
    /// The period of the pattern.
    static let period: UInt64 = 251

    /// The largest piece `slice` hands out.
    static let maxSliceLength = 1 << 20

    /// The pattern from offset 0, long enough that any slice fits after any phase.
    private static let storage: ByteBuffer = {
        let length = Int(period) + maxSliceLength
        var buffer = ByteBufferAllocator().buffer(capacity: length)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: length) { raw in
            for index in 0..<length {
                raw[index] = UInt8(index % Int(period))
            }
            return length
        }
        return buffer
    }()

    /// The byte at `position` for `seed`.
    static func byte(at position: UInt64, seed: UInt64 = 0) -> UInt8 {
        UInt8((position % period + seed % period) % period)
    }

    /// `length` pattern bytes (at most ``maxSliceLength``) starting at `position`.
    static func slice(at position: UInt64, length: Int, seed: UInt64) -> ByteBuffer {
        let phase = Int((position % period + seed % period) % period)
        let count = min(length, maxSliceLength)
        return storage.getSlice(at: storage.readerIndex + phase, length: count) ?? ByteBuffer()
    }

    /// `count` pattern bytes starting at `position`, as slices of at most ``maxSliceLength``.
    static func pieces(at position: UInt64, count: Int, seed: UInt64) -> [ByteBuffer] {
        var pieces: [ByteBuffer] = []
        var offset = 0
        while offset < count {
            let length = min(count - offset, maxSliceLength)
            pieces.append(slice(at: position + UInt64(offset), length: length, seed: seed))
            offset += length
        }
        return pieces
    }
}
