#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writing whole buffers to a file descriptor, for the files Curlew writes itself (downloads,
/// cache entries).
enum DescriptorWriter {
    /// Writes all of `bytes`, going on after partial writes and `EINTR`; any other failure is a
    /// ``CurlewError/Kind/fileSystem`` error that names `what` was being written.
    static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, what: String) throws(CurlewError) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, base + offset, bytes.count - offset)
            if written < 0 {
                let failure = errno
                if failure == EINTR { continue }
                throw .fileSystem("writing \(what) failed", code: failure)
            }
            offset += written
        }
    }
}
