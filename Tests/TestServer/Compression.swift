import CTestCompression
import Foundation
import NIOCore

/// One-shot compression of small bodies with zlib, brotli and zstd.
enum Compression {
    /// The container a zlib deflate stream is wrapped in.
    enum Format {
        /// gzip (RFC 1952), `Content-Encoding: gzip`.
        case gzip
        /// zlib (RFC 1950), what `Content-Encoding: deflate` means.
        case zlib
        /// Raw deflate (RFC 1951), which some servers send as `Content-Encoding: deflate`.
        case raw

        /// The window-bits argument to `deflateInit2` selecting this container.
        var windowBits: Int32 {
            switch self {
            case .gzip: return 31
            case .zlib: return 15
            case .raw: return -15
            }
        }
    }

    /// Compresses `data` whole; `nil` if zlib fails.
    static func deflate(_ data: Data, format: Format) -> Data? {
        guard let stream = DeflateStream(format: format, level: 6) else { return nil }
        var output = ByteBuffer()
        let ok = data.withUnsafeBytes { raw in
            stream.compress(raw, finish: true, into: &output)
        }
        guard ok else { return nil }
        return Data(output.readableBytesView)
    }

    /// Compresses `data` with brotli; `nil` if the encoder fails.
    ///
    /// The default quality (11) compresses about 1 MB/s: a large body would hold the event
    /// loop for seconds, so bulk bodies pass a lower one.
    static func brotli(_ data: Data, quality: Int32 = BROTLI_DEFAULT_QUALITY) -> Data? {
        var encodedSize = BrotliEncoderMaxCompressedSize(data.count)
        guard encodedSize > 0 else { return nil }
        var encoded = [UInt8](repeating: 0, count: encodedSize)
        let status = data.withUnsafeBytes { raw in
            encoded.withUnsafeMutableBufferPointer { out in
                BrotliEncoderCompress(
                    quality, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC, raw.count,
                    raw.bindMemory(to: UInt8.self).baseAddress, &encodedSize, out.baseAddress)
            }
        }
        guard status == BROTLI_TRUE else { return nil }
        return Data(encoded.prefix(encodedSize))
    }
}

extension Compression {
    /// Compresses `data` as one zstd frame; `nil` if the encoder fails.
    static func zstd(_ data: Data) -> Data? {
        var encoded = [UInt8](repeating: 0, count: ZSTD_compressBound(data.count))
        let size = data.withUnsafeBytes { raw in
            encoded.withUnsafeMutableBytes { out in
                ZSTD_compress(out.baseAddress, out.count, raw.baseAddress, raw.count, 3)
            }
        }
        guard ZSTD_isError(size) == 0 else { return nil }
        return Data(encoded.prefix(size))
    }
}

/// An incremental zlib deflate stream, for bodies compressed piece by piece.
///
/// zlib keeps a pointer back to its `z_stream`, so the stream lives at a fixed heap address.
/// Used from one event loop at a time.
final class DeflateStream {
    private let stream: UnsafeMutablePointer<z_stream>
    private var isFinished = false

    /// Starts a stream; `nil` if zlib cannot initialise.
    init?(format: Compression.Format, level: Int32) {
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = deflateInit2_(
            stream, level, Z_DEFLATED, format.windowBits, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
            Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            return nil
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Compresses `input`, appending whatever output zlib produces to `output`. With `finish`,
    /// also flushes and ends the stream. Returns `false` on a zlib error.
    func compress(_ input: UnsafeRawBufferPointer, finish: Bool, into output: inout ByteBuffer) -> Bool {
        guard !isFinished else { return input.isEmpty }
        let base = input.bindMemory(to: Bytef.self).baseAddress
        stream.pointee.next_in = UnsafeMutablePointer(mutating: base)
        stream.pointee.avail_in = uInt(input.count)
        defer {
            stream.pointee.next_in = nil
            stream.pointee.avail_in = 0
        }
        let flush = finish ? Z_FINISH : Z_NO_FLUSH
        while true {
            let chunk = 16 * 1024
            var status: Int32 = Z_OK
            output.writeWithUnsafeMutableBytes(minimumWritableBytes: chunk) { out in
                stream.pointee.next_out = out.bindMemory(to: Bytef.self).baseAddress
                stream.pointee.avail_out = uInt(out.count)
                status = CTestCompression.deflate(stream, flush)
                let written = out.count - Int(stream.pointee.avail_out)
                stream.pointee.next_out = nil
                stream.pointee.avail_out = 0
                return written
            }
            switch status {
            case Z_STREAM_END:
                isFinished = true
                return true
            case Z_OK, Z_BUF_ERROR:
                // Without `finish`, this input is done once zlib has taken all of it. With
                // `finish`, only Z_STREAM_END ends the loop; Z_BUF_ERROR there means no progress.
                if !finish && stream.pointee.avail_in == 0 {
                    return true
                }
                if finish && status == Z_BUF_ERROR {
                    return false
                }
            default:
                return false
            }
        }
    }
}
