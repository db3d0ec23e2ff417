import Foundation
import HTTPTypes
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A stored body handed to a `bytes` stream chunk by chunk, from memory or from its disk
/// entry's file (read with `pread`, so memory stays at one chunk whatever the body's size).
/// The body was checked against its checksum before the stream was handed out.
final class CachedBodyStream: Sendable {
    let head: HTTPResponse
    private let entry: CacheEntry
    /// Bytes handed out so far, and the open file (-1 for a memory body, or once closed).
    private let state: Mutex<(position: Int, descriptor: Int32)>

    /// Checks the whole body (a disk entry is read once, in chunks) and opens it; nil when it is
    /// damaged or gone.
    init?(entry: CacheEntry) {
        var descriptor: Int32 = -1
        if case .file(let path, _) = entry.body {
            do throws(CurlewError) {
                try CachedBodyReader.forEachChunk(of: entry) { _ in }
            } catch {
                return nil
            }
            descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            guard descriptor >= 0 else { return nil }
        }
        self.entry = entry
        head = entry.head.response
        state = Mutex((0, descriptor))
    }

    /// The next chunk, or nil at the end.
    func next() throws(CurlewError) -> Data? {
        try state.withLock { state throws(CurlewError) -> Data? in
            let remaining = entry.head.bodyLength - state.position
            switch entry.body {
            case .memory(let data):
                guard state.position < data.count else { return nil }
                let count = min(CachedBodyReader.chunkSize, data.count - state.position)
                defer { state.position += count }
                return data.subdata(in: (data.startIndex + state.position)..<(data.startIndex + state.position + count))
            case .file(_, let offset):
                guard remaining > 0, state.descriptor >= 0 else { return nil }
                var chunk = Data(count: min(CachedBodyReader.chunkSize, remaining))
                let wanted = chunk.count
                let read = chunk.withUnsafeMutableBytes { pread(state.descriptor, $0.baseAddress, wanted, off_t(offset + state.position)) }
                guard read > 0 else {
                    throw CurlewError(.fileSystem, "the cached body of \(entry.head.key) could not be read")
                }
                state.position += read
                if state.position >= entry.head.bodyLength {
                    close(state.descriptor)
                    state.descriptor = -1
                }
                return read == wanted ? chunk : chunk.prefix(read)
            }
        }
    }

    deinit {
        let descriptor = state.withLock { $0.descriptor }
        if descriptor >= 0 { close(descriptor) }
    }
}
