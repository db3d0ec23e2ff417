import CCurlShims
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A replayable upload body read by libcurl's read callback on the curl thread.
final class UploadSource {
    private enum Storage {
        case data(Data, offset: Int)
        case file(descriptor: Int32, path: String)
    }

    private var storage: Storage

    init(data: Data) { storage = .data(data, offset: 0) }

    init(file url: URL) throws(CurlewError) {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CurlewError(.invalidRequest, "cannot open the body file \(url.path): \(String(cString: strerror(errno)))")
        }
        storage = .file(descriptor: descriptor, path: url.path)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(CurlewError) -> Int {
        switch storage {
        case .data(let data, let offset):
            let count = min(buffer.count, data.count - offset)
            guard count > 0 else { return 0 }
            data.withUnsafeBytes { bytes in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)]))
            }
            storage = .data(data, offset: offset + count)
            return count
        case .file(let descriptor, let path):
            while true {
                let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
                if count >= 0 { return count }
                if errno == EINTR { continue }
                throw CurlewError(.uploadFailed, "reading the body file \(path) failed: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Whether the source has bytes beyond those read so far: a file that grew since its length
    /// was taken. Reads one byte ahead of a file, so call it only to decide to abort.
    func hasMoreBytes() -> Bool {
        switch storage {
        case .data(let data, let offset):
            return offset < data.count
        case .file(let descriptor, _):
            var byte: UInt8 = 0
            while true {
                let count = Glibc.read(descriptor, &byte, 1)
                if count >= 0 { return count > 0 }
                if errno != EINTR { return false }
            }
        }
    }

    /// Rewinds for a resend (libcurl asks on some redirects and retries of a stream).
    func seek(to offset: Int64) -> Bool {
        switch storage {
        case .data(let data, _):
            guard offset >= 0, offset <= Int64(data.count) else { return false }
            storage = .data(data, offset: Int(offset))
            return true
        case .file(let descriptor, _):
            return lseek(descriptor, off_t(offset), SEEK_SET) == off_t(offset)
        }
    }

    func close() {
        if case .file(let descriptor, _) = storage {
            _ = Glibc.close(descriptor)
            storage = .data(Data(), offset: 0)
        }
    }

    deinit { close() }
}
