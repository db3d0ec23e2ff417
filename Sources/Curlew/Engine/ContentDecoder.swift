import CDecompression
import Foundation

/// Decodes a response body's content codings (RFC 9110 §8.4), stacked ones too, and its
/// transfer codings other than `chunked`, as the coded bytes arrive, and knows whether every
/// coded stream reached its end.
///
/// Curlew decodes bodies itself (libcurl's `CURLOPT_HTTP_CONTENT_DECODING` is off) because
/// libcurl 7.88 hands over a gzip, deflate, brotli or zstd stream that stops short as if it
/// were complete: a truncated body would read as a valid 200. With that option off, libcurl
/// also hands over a `Transfer-Encoding: gzip, chunked` body de-chunked but still gzip-coded,
/// so transfer codings are decoded here too. Confined to the curl thread.
final class ContentDecoder {
    /// The codings Curlew decodes, as it offers them in `Accept-Encoding` (in the order of
    /// curl's `--compressed`, so `cURLDescription()` stays exact).
    static let acceptEncoding = "deflate, gzip, br, zstd"

    /// The most codings one response may stack (content and transfer codings together), as
    /// libcurl allows: each stage holds a decoder and a 64 KiB buffer, and a field of thousands
    /// of codings would otherwise take gigabytes and recurse as deep.
    static let maximumCodings = 5

    /// The decoders in the order they undo the codings: the last coding applied comes first.
    private let stages: [any ContentDecodingStage]
    /// The limit on each stage's output: every stage's, not only the last one's, since an inner
    /// stage throws away what follows the end of its stream and the work of producing it would
    /// otherwise be unbounded.
    private let limit: DecompressionLimit
    /// Bytes each stage produced so far.
    private var producedBytes: [Int]
    /// Coded bytes received so far.
    private(set) var codedBytes = 0
    /// Decoded bytes produced so far (what the last stage produced).
    var decodedBytes: Int { producedBytes.last ?? 0 }

    /// A decoder for a response's `Content-Encoding` and `Transfer-Encoding` values, or nil when
    /// the codings amount to identity (and `chunked`, which libcurl removes). The sender applied
    /// the content codings, in order, then the transfer codings: they are undone the other way
    /// round (RFC 9110 §8.4, RFC 9112 §6.1). Throws ``CurlewError/Kind/malformedResponse`` for a
    /// coding Curlew cannot decode or more than ``maximumCodings``.
    init?(
        contentEncoding: String?, transferEncoding: String? = nil, limit: DecompressionLimit = .unlimited
    ) throws(CurlewError) {
        var names: [String] = []
        for (field, value) in [("content", contentEncoding), ("transfer", transferEncoding)] {
            guard let value else { continue }
            for token in value.split(separator: ",") {
                let coding = token.trimmingCharacters(in: .whitespaces).lowercased()
                if coding.isEmpty || coding == "identity" || (field == "transfer" && coding == "chunked") { continue }
                guard Self.isDecodable(coding) else {
                    throw CurlewError(
                        .malformedResponse,
                        "the response uses the \(field) coding '\(coding.prefix(40))', which Curlew cannot decode")
                }
                names.append(coding)
                if names.count > Self.maximumCodings {
                    throw CurlewError(
                        .malformedResponse,
                        "the response stacks more than \(Self.maximumCodings) content and transfer codings; Curlew decodes at most \(Self.maximumCodings)")
                }
            }
        }
        guard !names.isEmpty else { return nil }
        // Undone last applied first: the transfer codings, then the content codings, each list
        // from its end.
        var stages: [any ContentDecodingStage] = []
        for coding in names.reversed() { stages.append(try Self.stage(for: coding)) }
        self.stages = stages
        self.limit = limit
        producedBytes = Array(repeating: 0, count: stages.count)
    }

    private static func isDecodable(_ coding: String) -> Bool {
        ["gzip", "x-gzip", "deflate", "br", "zstd"].contains(coding)
    }

    private static func stage(for coding: String) throws(CurlewError) -> any ContentDecodingStage {
        switch coding {
        case "deflate": try ZlibDecodingStage(format: .deflate)
        case "br": try BrotliDecodingStage()
        case "zstd": try ZstdDecodingStage()
        default: try ZlibDecodingStage(format: .gzip)
        }
    }

    /// Decodes `input` whole, handing each piece of decoded output to `output` in order. Throws
    /// ``CurlewError/Kind/decompressionBomb`` once a stage's output passes the limit.
    func decode(
        _ input: UnsafeRawBufferPointer, into output: (UnsafeRawBufferPointer) throws(CurlewError) -> Void
    ) throws(CurlewError) {
        codedBytes += input.count
        try run(input, from: 0, into: output)
    }

    private func run(
        _ input: UnsafeRawBufferPointer, from index: Int,
        into output: (UnsafeRawBufferPointer) throws(CurlewError) -> Void
    ) throws(CurlewError) {
        guard index < stages.count else {
            try output(input)
            return
        }
        do {
            try stages[index].decode(input) { (piece: UnsafeRawBufferPointer) throws(CurlewError) in
                producedBytes[index] += piece.count
                try checkRatio(producedBytes[index], stage: index)
                try run(piece, from: index + 1, into: output)
            }
        } catch let failure as ContentDecodingFailure {
            throw CurlewError(
                .malformedResponse, "the \(stages[index].name)-coded body is corrupt: \(failure.detail)")
        } catch let error as CurlewError {
            throw error
        } catch {
            throw CurlewError(.malformedResponse, "decoding the body failed: \(error)")
        }
    }

    /// Fails once `produced` passes the limit's minimum size and its ratio to the coded bytes
    /// received.
    private func checkRatio(_ produced: Int, stage index: Int) throws(CurlewError) {
        guard produced > limit.minimumSize else { return }
        let (allowed, overflow) = max(codedBytes, 1).multipliedReportingOverflow(by: limit.ratio)
        guard !overflow && produced > allowed else { return }
        let what = index == stages.count - 1 ? "the compressed body" : "the \(stages[index].name)-coded layer of the body"
        throw CurlewError(
            .decompressionBomb,
            "\(what) expanded from \(codedBytes) to more than \(produced) bytes, past the ratio limit of \(limit.ratio)")
    }

    /// Checks, once the body has ended, that every coded stream that began also ended.
    func finish() throws(CurlewError) {
        for stage in stages where !stage.isComplete {
            throw CurlewError(
                .malformedResponse,
                "the \(stage.name)-coded body ended before its compressed stream did: the response is truncated or corrupt")
        }
    }
}

/// Why a decoding stage rejected its input.
struct ContentDecodingFailure: Error {
    let detail: String
}

/// The decoder of one content coding, fed its coded bytes in pieces.
protocol ContentDecodingStage: AnyObject {
    /// The coding's name, for messages.
    var name: String { get }
    /// Whether the coded stream ended (or none began: an empty body is complete).
    var isComplete: Bool { get }
    /// Decodes `input` whole, handing each piece of output to `output`; throws
    /// ``ContentDecodingFailure`` for invalid input, and rethrows what `output` throws.
    func decode(_ input: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) throws(CurlewError) -> Void) throws
}

/// The size of each stage's output buffer.
private let outputBufferSize = 64 << 10

/// gzip (RFC 1952) and deflate (RFC 9110: a zlib stream, RFC 1950; raw deflate is accepted too,
/// as servers send it and browsers and curl decode it).
final class ZlibDecodingStage: ContentDecodingStage {
    enum Format { case gzip, deflate }

    private enum Phase {
        /// Inside a stream (gzip: a member).
        case decoding
        /// A gzip member ended; another may follow.
        case betweenMembers
        /// The stream ended and what follows is not another member: ignored, as curl and
        /// browsers do.
        case trailing
    }

    let name: String
    private let format: Format
    private let stream: UnsafeMutablePointer<z_stream>
    private let buffer: UnsafeMutableRawBufferPointer
    private var phase = Phase.decoding
    private var sawInput = false
    /// Whether a deflate stream may still turn out to be raw deflate (nothing decoded yet).
    private var mayBeRawDeflate: Bool
    /// While it may: the coded bytes of the earlier pieces, so that they can be decoded again
    /// as raw deflate when zlib rejects the stream in a later piece (a first piece of one byte
    /// is not enough for zlib to check its two-byte header).
    private var earlierInput: [UInt8] = []
    /// How many coded bytes zlib may take before its first output for the stream still to be
    /// retried as raw deflate; bounds `earlierInput`.
    private static let rawRetryWindow = 64 << 10

    init(format: Format) throws(CurlewError) {
        self.format = format
        name = format == .gzip ? "gzip" : "deflate"
        mayBeRawDeflate = format == .deflate
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        buffer = .allocate(byteCount: outputBufferSize, alignment: 1)
        guard curlew_inflate_init(stream, format == .gzip ? 15 + 16 : 15) == Z_OK else {
            buffer.deallocate()
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw CurlewError(.transport, "zlib could not start a decoder: out of memory")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
        buffer.deallocate()
    }

    var isComplete: Bool { !sawInput || phase != .decoding }

    func decode(_ input: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) throws(CurlewError) -> Void) throws {
        guard let base = input.baseAddress, !input.isEmpty, phase != .trailing else { return }
        sawInput = true
        defer {
            if mayBeRawDeflate && earlierInput.count + input.count <= Self.rawRetryWindow {
                earlierInput.append(contentsOf: input)
            } else {
                mayBeRawDeflate = false
                earlierInput = []
            }
        }
        var rest = UnsafeRawBufferPointer(start: base, count: input.count)
        while !rest.isEmpty {
            if phase == .betweenMembers {
                // Another gzip member starts with its magic number; anything else is trailing
                // garbage after a complete body.
                guard rest[0] == 0x1F else {
                    phase = .trailing
                    return
                }
                inflateReset(stream)
                phase = .decoding
            }
            let consumed = try inflate(rest, output: output, retryAsRaw: true)
            rest = UnsafeRawBufferPointer(rebasing: rest[consumed...])
            if phase == .decoding { break }
            if format == .deflate {
                phase = .trailing
                return
            }
        }
    }

    /// Inflates from `input` until it is used up or the stream ends; returns the bytes used.
    private func inflate(
        _ input: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) throws(CurlewError) -> Void,
        retryAsRaw: Bool
    ) throws -> Int {
        let out = buffer.bindMemory(to: Bytef.self)
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
        stream.pointee.avail_in = uInt(input.count)
        defer {
            stream.pointee.next_in = nil
            stream.pointee.avail_in = 0
        }
        while true {
            stream.pointee.next_out = out.baseAddress
            stream.pointee.avail_out = uInt(out.count)
            let status = CDecompression.inflate(stream, Z_NO_FLUSH)
            let produced = out.count - Int(stream.pointee.avail_out)
            if produced > 0 {
                mayBeRawDeflate = false
                try output(UnsafeRawBufferPointer(rebasing: buffer[0..<produced]))
            }
            switch status {
            case Z_STREAM_END:
                phase = .betweenMembers
                return input.count - Int(stream.pointee.avail_in)
            case Z_OK, Z_BUF_ERROR:
                // Done with this input once zlib took all of it and has nothing more to give.
                if stream.pointee.avail_in == 0 && stream.pointee.avail_out > 0 { return input.count }
                if status == Z_BUF_ERROR { throw ContentDecodingFailure(detail: "zlib made no progress") }
            case Z_DATA_ERROR where mayBeRawDeflate && retryAsRaw && Int(stream.pointee.total_in) <= Self.rawRetryWindow:
                // Not a zlib stream: decode the same bytes, the earlier pieces' too, as raw
                // deflate, once.
                mayBeRawDeflate = false
                inflateEnd(stream)
                stream.pointee = z_stream()
                guard curlew_inflate_init(stream, -15) == Z_OK else {
                    throw ContentDecodingFailure(detail: "zlib could not start a raw deflate decoder")
                }
                let earlier = earlierInput
                earlierInput = []
                if !earlier.isEmpty {
                    _ = try earlier.withUnsafeBytes { try inflate($0, output: output, retryAsRaw: false) }
                    // The raw stream ended within the earlier pieces: this one is trailing.
                    if phase != .decoding { return input.count }
                }
                return try inflate(input, output: output, retryAsRaw: false)
            default:
                let message = stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                throw ContentDecodingFailure(detail: message)
            }
        }
    }
}

/// brotli (RFC 7932).
final class BrotliDecodingStage: ContentDecodingStage {
    let name = "br"
    private let state: OpaquePointer
    private let buffer: UnsafeMutableRawBufferPointer
    private var sawInput = false
    private var ended = false

    init() throws(CurlewError) {
        guard let state = BrotliDecoderCreateInstance(nil, nil, nil) else {
            throw CurlewError(.transport, "brotli could not start a decoder: out of memory")
        }
        self.state = state
        buffer = .allocate(byteCount: outputBufferSize, alignment: 1)
    }

    deinit {
        BrotliDecoderDestroyInstance(state)
        buffer.deallocate()
    }

    var isComplete: Bool { !sawInput || ended }

    func decode(_ input: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) throws(CurlewError) -> Void) throws {
        // Bytes after the end of the stream are ignored, as for gzip.
        guard !input.isEmpty, !ended else { return }
        sawInput = true
        var availableIn = input.count
        var nextIn = input.bindMemory(to: UInt8.self).baseAddress
        let out = buffer.bindMemory(to: UInt8.self)
        while true {
            var availableOut = out.count
            var nextOut = out.baseAddress
            let result = BrotliDecoderDecompressStream(state, &availableIn, &nextIn, &availableOut, &nextOut, nil)
            let produced = out.count - availableOut
            if produced > 0 { try output(UnsafeRawBufferPointer(rebasing: buffer[0..<produced])) }
            switch result {
            case BROTLI_DECODER_RESULT_SUCCESS:
                ended = true
                return
            case BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT:
                return
            case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT:
                continue
            default:
                let code = BrotliDecoderGetErrorCode(state)
                let detail = BrotliDecoderErrorString(code).map { String(cString: $0) } ?? "error \(code.rawValue)"
                throw ContentDecodingFailure(detail: detail)
            }
        }
    }
}

/// zstd (RFC 8878), with the decoder's window limited to 8 MiB as RFC 8878 §3.1.1.1.2
/// recommends for HTTP, so a frame cannot make the decoder allocate gigabytes.
final class ZstdDecodingStage: ContentDecodingStage {
    let name = "zstd"
    private let context: OpaquePointer
    private let buffer: UnsafeMutableRawBufferPointer
    private var sawInput = false
    /// Whether the last frame begun was decoded and flushed whole.
    private var frameEnded = true

    init() throws(CurlewError) {
        guard let context = ZSTD_createDCtx() else {
            throw CurlewError(.transport, "zstd could not start a decoder: out of memory")
        }
        self.context = context
        buffer = .allocate(byteCount: outputBufferSize, alignment: 1)
        _ = ZSTD_DCtx_setParameter(context, ZSTD_d_windowLogMax, 23)
    }

    deinit {
        ZSTD_freeDCtx(context)
        buffer.deallocate()
    }

    var isComplete: Bool { !sawInput || frameEnded }

    func decode(_ input: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) throws(CurlewError) -> Void) throws {
        guard let base = input.baseAddress, !input.isEmpty else { return }
        sawInput = true
        var source = ZSTD_inBuffer(src: base, size: input.count, pos: 0)
        while true {
            var target = ZSTD_outBuffer(dst: buffer.baseAddress, size: buffer.count, pos: 0)
            let hint = ZSTD_decompressStream(context, &target, &source)
            if ZSTD_isError(hint) != 0 {
                throw ContentDecodingFailure(detail: String(cString: ZSTD_getErrorName(hint)))
            }
            frameEnded = hint == 0
            if target.pos > 0 { try output(UnsafeRawBufferPointer(rebasing: buffer[0..<target.pos])) }
            // Done once the input is used up and the output buffer was not filled.
            if source.pos == source.size && target.pos < target.size { return }
        }
    }
}
