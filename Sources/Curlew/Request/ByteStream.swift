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
        private let state = Mutex<(transfer: Transfer?, cached: CachedBodyStream?, finished: Bool)>((nil, nil, false))

        init(core: RequestCore, started: Transfer?) {
            self.core = core
            state.withLock { $0.transfer = started }
        }

        func next() async throws(CurlewError) -> Data? {
            let (current, cached, finished) = state.withLock { ($0.transfer, $0.cached, $0.finished) }
            if finished { return nil }
            let transfer: Transfer?
            if current != nil || cached != nil {
                transfer = current
            } else {
                do {
                    switch try await core.startStream() {
                    case .transfer(let started):
                        transfer = started
                        state.withLock { $0.transfer = started }
                    case .cached(let stored):
                        transfer = nil
                        state.withLock { $0.cached = stored }
                    }
                } catch {
                    state.withLock { $0.finished = true }
                    throw error
                }
            }
            do {
                let source = state.withLock { $0.cached }
                let chunk: Data?
                if let transfer { chunk = try await transfer.nextChunk() } else { chunk = try source?.next() }
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
