import Synchronization

/// Awaits a task with a guard against a hang: the task's result, or nil once `limit` passed
/// first. The limit only turns a hang into a failure: make it far above any expected wait, and
/// record "hung" when it fires (the task itself goes on; a hung test has failed already).
///
/// Unlike a task group, which waits for every child, this returns at the limit even when the
/// task ignores cancellation.
public enum HangGuard {
    public static func result<Success: Sendable>(
        of task: Task<Success, any Error>, within limit: Duration = .seconds(120)
    ) async -> Result<Success, any Error>? {
        let settled = Mutex(false)
        return await withCheckedContinuation { (continuation: CheckedContinuation<Result<Success, any Error>?, Never>) in
            let finish: @Sendable (Result<Success, any Error>?) -> Void = { result in
                let first = settled.withLock { done in
                    defer { done = true }
                    return !done
                }
                if first { continuation.resume(returning: result) }
            }
            Task { finish(await task.result) }
            Task {
                try? await Task.sleep(for: limit)
                finish(nil)
            }
        }
    }
}

extension Result {
    /// The error of a failure; nil for a success.
    public var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
