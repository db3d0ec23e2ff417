import Foundation

/// The streamed body of a ``MultipartFormData``: its bytes in chunks of at most
/// `chunkSize`, files read as they are reached, so memory stays bounded whatever the size
/// of the form.
///
/// Each iteration starts from the beginning, so the sequence can back a replayable
/// `RequestBody`. A file or stream part that turns out shorter or longer than its declared
/// length fails with ``CurlewError/Kind/uploadFailed``: the body would no longer match its
/// `Content-Length`.
struct MultipartBodySequence: AsyncSequence, Sendable {
    /// The largest chunk produced: 256 KiB.
    static let chunkSize = 256 * 1024

    /// A run of the body.
    enum Segment: Sendable {
        case bytes(Data)
        case file(URL, length: Int64)
        /// A stream part; `length` nil for one of unknown length, which is not checked.
        case stream(@Sendable () -> ChunkSource, length: Int64?)
    }

    let segments: [Segment]
    /// `--` and a caller-chosen boundary, which file and stream content must not contain (nil
    /// for a random boundary). No default: every body says which it has.
    let guardedDelimiter: Data?

    /// Returns an iterator that starts at the first byte.
    func makeAsyncIterator() -> Iterator { Iterator(segments: segments, guardedDelimiter: guardedDelimiter) }

    /// Produces the chunks of the body.
    struct Iterator: AsyncIteratorProtocol {
        private let segments: [Segment]
        private var index = 0
        private var offset: Int64 = 0
        private var file: MultipartFileReader?
        private var source: ChunkSource?
        private let guardedDelimiter: Data?
        /// The end of the content read so far in this segment, so a delimiter split across
        /// two chunks is seen too.
        private var carry = Data()

        init(segments: [Segment], guardedDelimiter: Data?) {
            self.segments = segments
            self.guardedDelimiter = guardedDelimiter
        }

        /// Fails when `chunk`, with what came before it, holds the guarded delimiter.
        private mutating func check(_ chunk: Data) throws(CurlewError) {
            guard let guardedDelimiter else { return }
            let window = carry + chunk
            if window.range(of: guardedDelimiter) != nil {
                let boundary = String(decoding: guardedDelimiter.dropFirst(2), as: UTF8.self)
                throw MultipartFormData.boundaryInContent(boundary)
            }
            carry = window.suffix(guardedDelimiter.count - 1)
        }

        /// The next chunk, or nil at the end of the body.
        mutating func next() async throws -> Data? {
            while index < segments.count {
                switch segments[index] {
                case .bytes(let data):
                    if offset < Int64(data.count) {
                        let start = data.startIndex + Int(offset)
                        let end = Swift.min(data.endIndex, start + MultipartBodySequence.chunkSize)
                        offset += Int64(end - start)
                        return data.subdata(in: start..<end)
                    }
                case .file(let url, let length):
                    let reader = try file ?? MultipartFileReader(url: url)
                    file = reader
                    if offset < length {
                        let wanted = Int(Swift.min(Int64(MultipartBodySequence.chunkSize), length - offset))
                        let chunk = try reader.read(upTo: wanted)
                        guard !chunk.isEmpty else {
                            throw CurlewError(
                                .uploadFailed,
                                "the file \(url.path) ended after \(offset) of its \(length) bytes; it changed during the upload",
                                url: url)
                        }
                        offset += Int64(chunk.count)
                        try check(chunk)
                        return chunk
                    }
                    guard try reader.read(upTo: 1).isEmpty else {
                        throw CurlewError(
                            .uploadFailed, "the file \(url.path) grew past its \(length) bytes during the upload",
                            url: url)
                    }
                    file = nil
                case .stream(let make, let length):
                    let current = source ?? make()
                    source = current
                    if let chunk = try await current.next() {
                        offset += Int64(chunk.count)
                        guard offset <= length ?? Int64.max else {
                            throw CurlewError(
                                .uploadFailed, "a multipart stream part produced more than its declared \(length ?? 0) bytes")
                        }
                        if chunk.isEmpty { continue }
                        let data = Data(chunk)
                        try check(data)
                        return data
                    }
                    if let length, offset != length {
                        throw CurlewError(
                            .uploadFailed,
                            "a multipart stream part ended after \(offset) of its declared \(length) bytes")
                    }
                    source = nil
                }
                index += 1
                offset = 0
                carry = Data()
            }
            return nil
        }
    }
}

/// An open file, closed when the last reference goes away.
final class MultipartFileReader {
    private let handle: FileHandle
    private let url: URL

    init(url: URL) throws(CurlewError) {
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw CurlewError(.fileSystem, "cannot open \(url.path) for the upload: \(error)", url: url, underlying: error)
        }
        self.url = url
    }

    /// Up to `count` bytes; empty at the end of the file.
    func read(upTo count: Int) throws(CurlewError) -> Data {
        do {
            return try handle.read(upToCount: count) ?? Data()
        } catch {
            throw CurlewError(.fileSystem, "reading \(url.path) failed: \(error)", url: url, underlying: error)
        }
    }

    deinit { try? handle.close() }
}
