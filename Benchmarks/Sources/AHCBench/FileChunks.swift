import BenchSupport
import Foundation
import NIOCore

/// A file read as an `AsyncSequence` of `ByteBuffer`s, for AsyncHTTPClient's streamed body.
///
/// Each `next()` does one blocking `pread` of page-cached data, which is how a simple
/// application would feed a file to AHC's `Body.stream`.
struct FileChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let path: String
    let length: Int64
    let chunkSize: Int

    init(path: String, chunkSize: Int) throws {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        guard let size = (attributes[.size] as? NSNumber)?.int64Value else {
            throw BenchFailure("cannot read the size of \(path)")
        }
        self.path = path
        self.length = size
        self.chunkSize = chunkSize
    }

    func makeAsyncIterator() -> Iterator { Iterator(path: path, chunkSize: chunkSize) }

    /// Reads the file front to back; closes it at the end.
    struct Iterator: AsyncIteratorProtocol {
        let path: String
        let chunkSize: Int
        var descriptor: Int32 = -1
        var offset: Int64 = 0
        var finished = false

        init(path: String, chunkSize: Int) {
            self.path = path
            self.chunkSize = chunkSize
        }

        mutating func next() async throws -> ByteBuffer? {
            if finished { return nil }
            if descriptor < 0 {
                descriptor = open(path, O_RDONLY)
                guard descriptor >= 0 else { throw BenchFailure("cannot open \(path)") }
            }
            var buffer = ByteBufferAllocator().buffer(capacity: chunkSize)
            let fd = descriptor
            let position = offset
            let count = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: chunkSize) { raw in
                Swift.max(0, pread(fd, raw.baseAddress, chunkSize, off_t(position)))
            }
            if count == 0 {
                finished = true
                close(descriptor)
                return nil
            }
            offset += Int64(count)
            return buffer
        }
    }
}
