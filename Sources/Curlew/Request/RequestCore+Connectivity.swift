import Foundation

extension RequestCore {
    /// Before an attempt: when the request (or its session) asks to wait for connectivity and
    /// the path is unsatisfied, tells the event monitors and waits until it is satisfied —
    /// cancellable by `cancel()` and task cancellation — or fails with
    /// ``CurlewError/Kind/notConnected`` once the limit passes. Without a monitor, or once the
    /// monitor stopped, the attempt starts anyway: waiting is a courtesy, never a reason to fail.
    func waitForConnectivity(before request: OutgoingRequest, attempt: Int) async throws(CurlewError) {
        guard let limit = connectivityWaitLimit(for: request) else { return }
        guard let reachability = await session.reachabilityMonitor() else { return }
        let path = reachability.currentPath
        if path.isSatisfied { return }
        monitor.map { $0.monitor.request($0.id, isWaitingForConnectivity: request, path: path, attempt: attempt) }
        let (outcome, cancelled) = await cancellably { await reachability.waitForSatisfiedPath(within: limit) }
        if let cancelled { throw cancelled }
        switch outcome {
        case .satisfied, .stopped:
            return
        case .timedOut(let path):
            throw CurlewError(
                .notConnected, "no network connection: waited \(limit) for a satisfied path, still \(path)",
                url: request.url)
        case .cancelled:
            throw CurlewError(.taskCancelled, "cancelled while waiting for connectivity", url: request.url)
        }
    }

    /// How long `request` waits for connectivity before an attempt; nil when it starts at once
    /// (checked without an `await`, so that most requests skip the suspension point).
    func connectivityWaitLimit(for request: OutgoingRequest) -> Duration? {
        guard let limit = request.options.waitsForConnectivity ?? session.configuration.waitsForConnectivity,
            limit > .zero
        else { return nil }
        return limit
    }
}

extension Session {
    /// The monitor the session's requests consult: the configured one, else the shared one
    /// (nil when that cannot start, which the session's logger hears of).
    nonisolated func reachabilityMonitor() async -> ReachabilityMonitor? {
        if let configured = configuration.reachabilityMonitor { return configured }
        do {
            return try await ReachabilityMonitor.shared()
        } catch {
            configuration.logger?.warning("no reachability monitor, so requests do not wait for connectivity: \(error)")
            return nil
        }
    }
}
