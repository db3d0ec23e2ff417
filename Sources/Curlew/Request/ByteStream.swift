import Foundation
import Synchronization

/// A response body as an asynchronous sequence of chunks, with backpressure.
///
/// Memory stays bounded whatever the body's size: libcurl is paused while the consumer is
/// behind. Iterate it once; dropping the iterator early cancels the transfer.
public struct ByteStream: AsyncSequence, Sendable {
    public typealias Element = Data
    public typealias Failure = any Error

    let core: RequestCore
    /// A transfer already started by ``DataRequest/streamedResponse()``; nil starts one on
    /// the first chunk asked for.
    let started: Transfer?

    init(core: RequestCore, started: Transfer? = nil) {
        self.core = core
        self.started = started
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(reader: Reader(core: core, started: started))
    }

    /// Iterates the chunks.
    public struct Iterator: AsyncIteratorProtocol {
        let reader: Reader

        public mutating func next() async throws -> Data? {
            try await reader.next()
        }
    }

    /// The consuming end. Cancels the transfer if released before the body ended.
    final class Reader: Sendable {
        private let core: RequestCore
        private let state = Mutex<(transfer: Transfer?, finished: Bool)>((nil, false))

        init(core: RequestCore, started: Transfer?) {
            self.core = core
            state.withLock { $0.transfer = started }
        }

        func next() async throws(CurlewError) -> Data? {
            let (current, finished) = state.withLock { ($0.transfer, $0.finished) }
            if finished { return nil }
            let transfer: Transfer
            if let current {
                transfer = current
            } else {
                do {
                    transfer = try await core.startStream()
                } catch {
                    state.withLock { $0.finished = true }
                    throw error
                }
                state.withLock { $0.transfer = transfer }
            }
            do {
                let chunk = try await transfer.nextChunk()
                if chunk == nil { state.withLock { $0.finished = true } }
                return chunk
            } catch {
                state.withLock { $0.finished = true }
                throw error
            }
        }

        deinit {
            let (transfer, finished) = state.withLock { ($0.transfer, $0.finished) }
            if !finished {
                transfer?.cancel(.streamDropped, "the byte stream was dropped before the body ended")
                core.cancel(.streamDropped, "the byte stream was dropped before the body ended")
            }
        }
    }
}
