import Foundation
import HTTPTypes

extension RequestCore {
    /// Starts the request in streaming mode: adapters run once and there are no retries.
    /// Validations run on the head. A fresh cached entry is streamed from the cache instead
    /// of the network.
    func startStream() async throws(CurlewError) -> StreamSource {
        try claimStream()
        var base = try effectiveBuild.get()
        let validations = validationsForRun()
        try await waitForConnectivity(before: base, attempt: 1)
        // The span of a stream ends with its transfer (`Transfer.finish`), or here on a failure first.
        let probe = session.instrumentation.begin(base)
        probe?.attemptStarting(1, request: &base)
        do throws(CurlewError) {
            let request = try await chain().adapt(base, for: session)
            if let monitor {
                monitor.monitor.request(monitor.id, didAdapt: base, to: request, attempt: 1)
                monitor.monitor.request(monitor.id, didStart: request, attempt: 1)
            }
            if let cache = session.configuration.cache, let stored = cachedStream(for: request, cache: cache) {
                state.withLock { $0.adaptedRequest = request }
                try validateStreamHead(stored.head, request: request, validations: validations, onFailure: {})
                if let probe {
                    var metrics = TransferMetrics.zero
                    metrics.cacheStatus = .hit
                    probe.finish(.success(TransferOutcome(
                        request: request, head: stored.head, body: Data(), metrics: metrics, redirects: [])))
                }
                return .cached(stored)
            }
            let transfer = Transfer(
                request: request, mode: .stream,
                settings: session.transferSettings(for: request.options), reportsProgress: events.hasListeners,
                events: events, loop: session.loop, probe: probe)
            state.withLock { $0.adaptedRequest = request }
            try register(transfer)
            let head = try await transfer.head()
            try validateStreamHead(head, request: request, validations: validations) {
                transfer.cancel(.cancelled, "validation failed")
            }
            return .transfer(transfer)
        } catch {
            probe?.finish(.failure(error))
            throw error
        }
    }

    /// Reports a stream's head to the monitors and runs the validations on it.
    private func validateStreamHead(
        _ head: HTTPResponse, request: OutgoingRequest, validations: [ValidationStep], onFailure: () -> Void
    ) throws(CurlewError) {
        monitor.map { $0.monitor.request($0.id, didReceive: head, for: request, attempt: 1) }
        do throws(CurlewError) {
            try validate(head, of: request, body: nil, with: validations)
        } catch {
            onFailure()
            throw error
        }
    }
}
