import Foundation

/// Reads a Foundation `InputStream` in chunks on a serial dispatch queue of its own, so that a
/// read that blocks (a pipe, a socket) holds neither the session's thread nor a thread of
/// Swift's cooperative pool. The upload pump asks for one chunk at a time.
final class InputStreamReader: @unchecked Sendable {
    // Safe: `stream`, `isOpen` and `isFinished` are touched only on `queue`, which is serial,
    // and in `deinit`, when no read can be running any more.
    private let stream: InputStream
    private let queue = DispatchQueue(label: "Curlew.InputStreamReader")
    private var isOpen = false
    private var isFinished = false

    static let chunkSize = 64 << 10

    init(_ stream: InputStream) {
        self.stream = stream
    }

    deinit {
        if isOpen && !isFinished { stream.close() }
    }

    /// The next chunk, or nil at the stream's end.
    func next() async throws(CurlewError) -> [UInt8]? {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<[UInt8]?, CurlewError>, Never>) in
            queue.async {
                continuation.resume(returning: Result { () throws(CurlewError) in try self.read() })
            }
        }
        return try result.get()
    }

    private func read() throws(CurlewError) -> [UInt8]? {
        if isFinished { return nil }
        if !isOpen {
            if stream.streamStatus == .notOpen { stream.open() }
            isOpen = true
        }
        var chunk = [UInt8](repeating: 0, count: Self.chunkSize)
        let count = chunk.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.map { stream.read($0, maxLength: buffer.count) } ?? -1
        }
        if count > 0 {
            chunk.removeSubrange(count...)
            return chunk
        }
        isFinished = true
        let failure = count < 0 ? stream.streamError : nil
        stream.close()
        if count < 0 {
            throw CurlewError(
                .uploadFailed, "reading the body's InputStream failed: \(failure.map { "\($0)" } ?? "no error given")")
        }
        return nil
    }
}
