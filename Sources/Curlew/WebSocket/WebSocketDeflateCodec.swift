import CDecompression

/// Raw deflate for permessage-deflate (RFC 7692 §7.2): each message compressed with a sync
/// flush whose closing `00 00 ff ff` is cut off, and inflated with that tail put back.
///
/// Used by the curl thread only (its connection owns it). The zlib streams live at fixed
/// addresses, as zlib requires, and are freed with the codec.
final class WebSocketDeflateCodec {
    private let deflater: UnsafeMutablePointer<z_stream>
    private let inflater: UnsafeMutablePointer<z_stream>
    private let parameters: NegotiatedCompression
    private var deflaterReady = false
    private var inflaterReady = false
    /// Inflated bytes of the message in progress, for the size limit.
    private var inflatedCount = 0
    private static let tail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

    init(_ parameters: NegotiatedCompression) {
        self.parameters = parameters
        deflater = .allocate(capacity: 1)
        deflater.initialize(to: z_stream())
        inflater = .allocate(capacity: 1)
        inflater.initialize(to: z_stream())
    }

    deinit {
        if deflaterReady { deflateEnd(deflater) }
        if inflaterReady { inflateEnd(inflater) }
        deflater.deallocate()
        inflater.deallocate()
    }

    /// `payload` compressed as one message; nil when zlib fails (out of memory).
    func compress(_ payload: UnsafeRawBufferPointer) -> [UInt8]? {
        if !deflaterReady {
            // zlib refuses an 8-bit window for raw deflate (and makes it 9 elsewhere). A 9-bit
            // window could refer 512 bytes back, past what a server with an 8-bit window keeps,
            // so for 8 the compressor codes literals only (Huffman), which any window reads.
            let bits = parameters.clientMaxWindowBits
            let strategy = bits == 8 ? Z_HUFFMAN_ONLY : Z_DEFAULT_STRATEGY
            let windowBits = Int32(-max(9, bits))
            guard curlew_deflate_init(deflater, Z_DEFAULT_COMPRESSION, windowBits, 8, strategy) == Z_OK else { return nil }
            deflaterReady = true
        }
        var output: [UInt8] = []
        output.reserveCapacity(payload.count / 2 + 64)
        var chunk = [UInt8](repeating: 0, count: max(256, min(64 << 10, payload.count + 64)))
        let base = UnsafeMutablePointer(mutating: payload.baseAddress?.assumingMemoryBound(to: Bytef.self))
        deflater.pointee.next_in = base
        deflater.pointee.avail_in = uInt(payload.count)
        repeat {
            let produced = chunk.withUnsafeMutableBytes { buffer -> Int? in
                deflater.pointee.next_out = buffer.baseAddress?.assumingMemoryBound(to: Bytef.self)
                deflater.pointee.avail_out = uInt(buffer.count)
                let status = deflate(deflater, Z_SYNC_FLUSH)
                guard status == Z_OK || status == Z_BUF_ERROR else { return nil }
                return buffer.count - Int(deflater.pointee.avail_out)
            }
            guard let produced else { return nil }
            output.append(contentsOf: chunk[0..<produced])
        } while deflater.pointee.avail_out == 0
        deflater.pointee.next_in = nil
        if output.count >= 4, Array(output.suffix(4)) == Self.tail { output.removeLast(4) }
        if parameters.clientNoContextTakeover { deflateReset(deflater) }
        return output
    }

    /// Inflates one frame's `payload` of a compressed message, appending to `output`; with
    /// `isLast`, the message's tail too. Throws once the message passes `limit` bytes inflated,
    /// or when the data is not deflate.
    func decompress(
        _ payload: [UInt8], isLast: Bool, limit: Int, into output: inout [UInt8]
    ) throws(WebSocketViolation) {
        if !inflaterReady {
            guard curlew_inflate_init(inflater, -15) == Z_OK else {
                throw WebSocketViolation(.internalServerError, "zlib could not start inflating (out of memory)")
            }
            inflaterReady = true
        }
        try inflate(payload, limit: limit, into: &output)
        if isLast {
            try inflate(Self.tail, limit: limit, into: &output)
            inflatedCount = 0
            if parameters.serverNoContextTakeover { inflateReset(inflater) }
        }
    }

    private func inflate(_ input: [UInt8], limit: Int, into output: inout [UInt8]) throws(WebSocketViolation) {
        guard !input.isEmpty else { return }
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        var failure: WebSocketViolation?
        input.withUnsafeBytes { raw in
            inflater.pointee.next_in = UnsafeMutablePointer(mutating: raw.baseAddress?.assumingMemoryBound(to: Bytef.self))
            inflater.pointee.avail_in = uInt(raw.count)
            while failure == nil {
                let (status, produced) = chunk.withUnsafeMutableBytes { buffer -> (Int32, Int) in
                    inflater.pointee.next_out = buffer.baseAddress?.assumingMemoryBound(to: Bytef.self)
                    inflater.pointee.avail_out = uInt(buffer.count)
                    let status = CDecompression.inflate(inflater, Z_SYNC_FLUSH)
                    return (status, buffer.count - Int(inflater.pointee.avail_out))
                }
                if status != Z_OK && status != Z_BUF_ERROR && status != Z_STREAM_END {
                    failure = WebSocketViolation(.invalidFramePayloadData, "the server's compressed message is not valid deflate data")
                    break
                }
                inflatedCount += produced
                if inflatedCount > limit {
                    failure = WebSocketViolation(
                        .messageTooBig, "the server's compressed message inflates past the maximum message size of \(limit) bytes",
                        kind: .decompressionBomb)
                    break
                }
                output.append(contentsOf: chunk[0..<produced])
                if status == Z_STREAM_END {
                    // A final deflate block ends the stream: later messages start a new one.
                    inflateReset(inflater)
                    if inflater.pointee.avail_in == 0 { break }
                    continue
                }
                if inflater.pointee.avail_out != 0 && inflater.pointee.avail_in == 0 { break }
                if produced == 0 && status == Z_BUF_ERROR { break }
            }
            inflater.pointee.next_in = nil
        }
        if let failure {
            inflatedCount = 0
            throw failure
        }
    }
}
