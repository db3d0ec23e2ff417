import Foundation
import TestServer

/// Reads memory figures of this process.
enum ProcessMemory {
    /// The resident set size in bytes; throws if it cannot be read (see `ResidentMemory`).
    static func residentBytes() throws -> Int { try ResidentMemory.bytes() }
}

/// A lazy asynchronous sequence of byte chunks cut from a generated text, for stream tests.
struct ChunkedBytes: AsyncSequence, Sendable {
    typealias Element = Data
    let chunks: [Data]

    /// Splits `text` into chunks of the given sizes, cycling through them.
    init(_ text: String, sizes: [Int]) {
        let bytes = Array(text.utf8)
        var chunks: [Data] = []
        var offset = 0
        var index = 0
        while offset < bytes.count {
            let size = Swift.max(1, sizes[index % sizes.count])
            let end = Swift.min(bytes.count, offset + size)
            chunks.append(Data(bytes[offset..<end]))
            offset = end
            index += 1
        }
        self.chunks = chunks
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        var remaining: ArraySlice<Data>
        mutating func next() async throws -> Data? { remaining.popFirst() }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(remaining: chunks[...]) }
}

/// Collects a sequence's elements, or the error that ended it.
func collect<S: AsyncSequence>(_ sequence: S) async -> (elements: [S.Element], error: (any Error)?) {
    var elements: [S.Element] = []
    do {
        for try await element in sequence { elements.append(element) }
        return (elements, nil)
    } catch {
        return (elements, error)
    }
}
