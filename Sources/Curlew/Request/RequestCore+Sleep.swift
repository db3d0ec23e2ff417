import Foundation

extension RequestCore {
    /// Waits before a retry; `cancel()` and task cancellation end the wait at once. Returns
    /// the error to fail with when the wait was cut short.
    func sleep(for delay: Duration, url: URL) async -> CurlewError? {
        let sleeper = Task { try await Task.sleep(for: delay) }
        let cancelled = state.withLock { state -> CurlewError? in
            if let reason = state.cancelReason { return reason }
            state.retryDelay = sleeper
            return nil
        }
        if let cancelled {
            sleeper.cancel()
            return cancelled
        }
        let slept = await withTaskCancellationHandler {
            (try? await sleeper.value) != nil
        } onCancel: {
            sleeper.cancel()
        }
        let reason = state.withLock { state -> CurlewError? in
            state.retryDelay = nil
            return state.cancelReason
        }
        if let reason { return reason }
        return slept ? nil : CurlewError(.taskCancelled, "cancelled while waiting to retry", url: url)
    }
}
