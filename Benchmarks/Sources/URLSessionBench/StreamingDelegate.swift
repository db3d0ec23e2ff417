import BenchSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// Counts and drops the chunks of data tasks, and resumes each task's waiter at the end.
final class StreamingDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private struct Transfer {
        var bytes: Int64 = 0
        var continuation: CheckedContinuation<Int64, any Error>?
    }

    private let transfers = Mutex<[Int: Transfer]>([:])

    /// Starts `task` and returns its body size once it completes.
    func run(_ task: URLSessionDataTask) async throws -> Int64 {
        try await withCheckedThrowingContinuation { continuation in
            transfers.withLock { $0[task.taskIdentifier] = Transfer(continuation: continuation) }
            task.resume()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let count = Int64(data.count)
        transfers.withLock { $0[dataTask.taskIdentifier]?.bytes += count }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let status = (task.response as? HTTPURLResponse)?.statusCode ?? 0
        guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else {
            return
        }
        if let error {
            transfer.continuation?.resume(throwing: error)
        } else if !(200..<300).contains(status) {
            transfer.continuation?.resume(throwing: BenchFailure("HTTP \(status)"))
        } else {
            transfer.continuation?.resume(returning: transfer.bytes)
        }
    }
}
