import Foundation

/// The body of a request: bytes in memory, a file, or an asynchronous sequence of chunks.
///
/// `Data`, `String` and file bodies can be sent again (on a retry or a 307/308 redirect). A
/// stream body is sent once, unless it is built with a factory that makes a fresh sequence
/// for each attempt.
public struct RequestBody: Sendable {
    enum Storage: Sendable {
        case data(Data)
        case file(URL)
        case stream(length: Int64?, replayable: Bool, make: @Sendable () -> ChunkSource)
    }

    let storage: Storage

    /// The body's length in bytes, when known. A body of unknown length is sent chunked.
    public var length: Int64? {
        switch storage {
        case .data(let data): return Int64(data.count)
        case .file(let url):
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
            return (attributes?[.size] as? NSNumber)?.int64Value
        case .stream(let length, _, _): return length
        }
    }

    /// Whether the body can be sent more than once.
    public var isReplayable: Bool {
        if case .stream(_, let replayable, _) = storage { return replayable }
        return true
    }

    /// A body of bytes in memory.
    public static func data(_ data: Data) -> RequestBody { RequestBody(storage: .data(data)) }

    /// A body of text, encoded as UTF-8.
    public static func string(_ string: String) -> RequestBody {
        RequestBody(storage: .data(Data(string.utf8)))
    }

    /// A body read from a file as it is sent; the file is never held in memory whole.
    public static func file(_ url: URL) -> RequestBody { RequestBody(storage: .file(url)) }

    /// A one-shot body from an asynchronous sequence of byte chunks.
    ///
    /// The sequence is iterated as libcurl asks for data, with backpressure: it is not read
    /// ahead by more than a small buffer. With `length` nil the body is sent chunked.
    public static func stream<S: AsyncSequence & Sendable>(_ sequence: S, length: Int64? = nil)
        -> RequestBody where S.Element: Collection<UInt8> & Sendable
    {
        RequestBody(storage: .stream(length: length, replayable: false) { ChunkSource(sequence) })
    }

    /// A replayable body: `makeSequence` is called once per attempt.
    public static func stream<S: AsyncSequence & Sendable>(
        length: Int64? = nil, _ makeSequence: @escaping @Sendable () -> S
    ) -> RequestBody where S.Element: Collection<UInt8> & Sendable {
        RequestBody(storage: .stream(length: length, replayable: true) { ChunkSource(makeSequence()) })
    }
}

/// A type-erased asynchronous source of byte chunks.
struct ChunkSource: Sendable {
    let next: @Sendable () async throws -> [UInt8]?

    init<S: AsyncSequence & Sendable>(_ sequence: S) where S.Element: Collection<UInt8> & Sendable {
        let box = IteratorBox(sequence.makeAsyncIterator())
        next = { try await box.next().map(Array.init) }
    }
}

/// Holds an iterator that is only ever advanced by one task at a time (the upload pump).
private final class IteratorBox<Iterator: AsyncIteratorProtocol>: @unchecked Sendable {
    // Safe: the upload pump is the only caller and awaits each `next()` before the next one.
    var iterator: Iterator
    init(_ iterator: Iterator) { self.iterator = iterator }
    func next() async throws -> Iterator.Element? { try await iterator.next() }
}
