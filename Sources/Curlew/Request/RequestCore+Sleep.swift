import Foundation

extension RequestCore {
    /// Waits before a retry; `cancel()` and task cancellation end the wait at once. Returns
    /// the error to fail with when the wait was cut short.
    func sleep(for delay: Duration, url: URL) async -> CurlewError? {
        let (slept, reason) = await cancellably { (try? await Task.sleep(for: delay)) != nil }
        if let reason { return reason }
        return slept ? nil : CurlewError(.taskCancelled, "cancelled while waiting to retry", url: url)
    }

    /// Runs `work` in a task that `cancel()` and the awaiting task's cancellation cancel at
    /// once; returns its result, and the reason when the request was cancelled meanwhile.
    func cancellably<T: Sendable>(_ work: @escaping @Sendable () async -> T) async -> (T, CurlewError?) {
        let task = Task { await work() }
        let early = state.withLock { state -> CurlewError? in
            if let reason = state.cancelReason { return reason }
            state.endWait = { task.cancel() }
            return nil
        }
        if early != nil { task.cancel() }
        let value = await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
        let reason = state.withLock { state -> CurlewError? in
            state.endWait = nil
            return state.cancelReason
        }
        return (value, reason)
    }
}
