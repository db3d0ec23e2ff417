import CCurlShims
import Foundation
import Synchronization

/// Moves an upload body from an `AsyncSequence` to libcurl's read callback, with
/// backpressure both ways: the pump waits while its small buffer is full, and the read
/// callback pauses the transfer while the buffer is empty.
final class UploadPump: Sendable {
    private struct State {
        var chunks: [[UInt8]] = []
        var offset = 0
        var bufferedBytes = 0
        var finished = false
        var error: CurlewError?
        var readerPaused = false
        var demand: CheckedContinuation<Void, Never>?
        var stopped = false
    }

    private let state = Mutex(State())
    private let source: ChunkSource
    private let capacity: Int
    private let task = Mutex<Task<Void, Never>?>(nil)
    private weak let transfer: Transfer?

    init(source: ChunkSource, transfer: Transfer, capacity: Int = 256 << 10) {
        self.source = source
        self.transfer = transfer
        self.capacity = capacity
    }

    func start() {
        let task = Task { [self] in await run() }
        self.task.withLock { $0 = task }
    }

    private func run() async {
        while true {
            await waitForRoom()
            if state.withLock({ $0.stopped }) { return }
            let next: [UInt8]?
            do {
                next = try await source.next()
            } catch {
                let failure = error as? CurlewError
                    ?? CurlewError(.uploadFailed, "the upload body sequence failed: \(error)", underlying: error)
                push { $0.error = failure }
                return
            }
            guard let next else {
                push { $0.finished = true }
                return
            }
            if next.isEmpty { continue }
            push {
                $0.chunks.append(next)
                $0.bufferedBytes += next.count
            }
        }
    }

    private func push(_ change: (inout State) -> Void) {
        let wakeReader = state.withLock { state -> Bool in
            change(&state)
            defer { state.readerPaused = false }
            return state.readerPaused
        }
        if wakeReader { transfer?.unpause() }
    }

    private func waitForRoom() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.bufferedBytes < capacity || state.stopped { return true }
                state.demand = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Called on the curl thread by the read callback. `remaining` is what is left of a declared
    /// length (nil for a chunked body): the last byte of it is held back until the sequence has
    /// ended or yielded more than that, so the caller can tell a body that is exactly as long as
    /// declared from a longer one before libcurl sends a complete request.
    func read(into buffer: UnsafeMutableRawBufferPointer, remaining: Int64?) -> Int {
        var demand: CheckedContinuation<Void, Never>?
        let result = state.withLock { state -> Int in
            var limit = buffer.count
            if let remaining {
                let knownLength = state.finished || Int64(state.bufferedBytes) > remaining
                limit = Int(min(Int64(limit), max(0, knownLength ? remaining : remaining - 1)))
            }
            var written = 0
            while written < limit, !state.chunks.isEmpty {
                let chunk = state.chunks[0]
                let count = min(limit - written, chunk.count - state.offset)
                chunk.withUnsafeBytes { bytes in
                    UnsafeMutableRawBufferPointer(rebasing: buffer[written..<(written + count)])
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[state.offset..<(state.offset + count)]))
                }
                written += count
                state.offset += count
                if state.offset == chunk.count {
                    state.chunks.removeFirst()
                    state.offset = 0
                }
            }
            state.bufferedBytes -= written
            if state.bufferedBytes < capacity, let waiting = state.demand {
                state.demand = nil
                demand = waiting
            }
            if written > 0 { return written }
            if state.error != nil { return Int(curlew_CURL_READFUNC_ABORT) }
            if state.finished { return 0 }
            state.readerPaused = true
            return Int(curlew_CURL_READFUNC_PAUSE)
        }
        demand?.resume()
        return result
    }

    /// Whether bytes are buffered that no read has taken yet.
    var hasBufferedBytes: Bool { state.withLock { $0.bufferedBytes > 0 } }

    /// The error that ended the body sequence, if any.
    var failure: CurlewError? { state.withLock { $0.error } }

    /// Stops pumping; called when the transfer ends.
    func stop() {
        let demand = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.stopped = true
            defer { state.demand = nil }
            return state.demand
        }
        demand?.resume()
        task.withLock { $0?.cancel() }
    }
}
