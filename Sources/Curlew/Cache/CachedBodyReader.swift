import Foundation
import HTTPTypes

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads stored bodies in chunks, checking their length and checksum, so that a body of any
/// size is served without holding it all in memory and a damaged one is never served.
enum CachedBodyReader {
    static let chunkSize = 256 << 10

    /// Calls `consume` with each chunk of the body; throws when the file is gone, short or damaged
    /// (the bytes already handed to `consume` must then be thrown away by the caller).
    static func forEachChunk(
        of entry: CacheEntry, _ consume: (UnsafeRawBufferPointer) throws(CurlewError) -> Void
    ) throws(CurlewError) {
        var hash = FNV1a()
        switch entry.body {
        case .memory(let data):
            try withBytes(of: data, consume)
            return
        case .file(let path, let offset):
            let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            guard descriptor >= 0 else { throw damaged(entry, "cannot open \(path)") }
            defer { close(descriptor) }
            guard lseek(descriptor, off_t(offset), SEEK_SET) == off_t(offset) else { throw damaged(entry, "cannot seek") }
            var remaining = entry.head.bodyLength
            var buffer = [UInt8](repeating: 0, count: min(chunkSize, max(remaining, 1)))
            while remaining > 0 {
                let wanted = min(buffer.count, remaining)
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, wanted) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { throw damaged(entry, "the body is shorter than recorded") }
                try withBytes(of: buffer) { (all: UnsafeRawBufferPointer) throws(CurlewError) in
                    let piece = UnsafeRawBufferPointer(rebasing: all[0..<count])
                    hash.update(piece)
                    try consume(piece)
                }
                remaining -= count
            }
        }
        guard hash.value == entry.head.bodyChecksum else { throw damaged(entry, "the body's checksum does not match") }
    }

    /// The whole body, for collected responses.
    static func data(of entry: CacheEntry) throws(CurlewError) -> Data {
        if case .memory(let data) = entry.body { return data }
        var data = Data()
        data.reserveCapacity(entry.head.bodyLength)
        try forEachChunk(of: entry) { data.append(contentsOf: $0) }
        return data
    }

    private static func damaged(_ entry: CacheEntry, _ reason: String) -> CurlewError {
        CurlewError(.fileSystem, "the cached response for \(entry.head.key) is damaged: \(reason)")
    }
}

/// `withUnsafeBytes` for a closure with a typed error.
func withBytes<Bytes: ContiguousBytes>(
    of value: Bytes, _ body: (UnsafeRawBufferPointer) throws(CurlewError) -> Void
) throws(CurlewError) {
    var failure: CurlewError?
    value.withUnsafeBytes { bytes in
        do throws(CurlewError) { try body(bytes) } catch { failure = error }
    }
    if let failure { throw failure }
}
