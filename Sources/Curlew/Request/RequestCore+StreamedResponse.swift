import Foundation
import HTTPTypes

extension RequestCore {
    /// Starts the request in streaming mode and returns once a response head is accepted, with
    /// the transfer still delivering the body.
    ///
    /// Unlike ``startStream()``, attempts go through the whole interceptor chain until the head:
    /// each attempt is adapted; a failure before the head (a refused connection, a timeout)
    /// passes through the failure interceptors and is shown to the retriers; and a head with a
    /// status of 400 or more is shown to the retriers as an ``CurlewError/Kind/unacceptableStatus``
    /// failure — without throwing it. A retry cancels that attempt's transfer before its delay.
    /// When no retrier asks for another attempt, the response is returned as it is (so a 404
    /// reaches the caller with its body); validations still run on the head and throw. Once the
    /// head is returned nothing is retried: the body is the caller's.
    func startStreamedResponse() async throws(CurlewError) -> (head: HTTPResponse, transfer: Transfer) {
        try claimStream()
        let base = try effectiveBuild.get()
        let validations = validationsForRun()
        let chain = chain()
        state.withLock { state in
            if state.firstAttemptStart == nil { state.firstAttemptStart = .now }
        }
        var attempt = 0
        // Streams never resume a partial file; `retryOrStop` wants somewhere to put one.
        var resumption: DownloadResumeData?
        while true {
            attempt += 1
            let attemptStart = ContinuousClock.now
            var request = base
            do throws(CurlewError) {
                if !chain.isEmpty { request = try await chain.adapt(base, for: session) }
                if let monitor {
                    monitor.monitor.request(monitor.id, didAdapt: base, to: request, attempt: attempt)
                    monitor.monitor.request(monitor.id, didStart: request, attempt: attempt)
                }
                let transfer = Transfer(
                    request: request, mode: .stream,
                    settings: session.transferSettings(for: request.options), reportsProgress: events.hasListeners,
                    events: events, loop: session.loop)
                state.withLock { $0.adaptedRequest = request }
                try register(transfer)
                let head = try await head(of: transfer, request: request, attempt: attempt, chain: chain)
                monitor.map { $0.monitor.request($0.id, didReceive: head, for: request, attempt: attempt) }
                try validate(head, of: request, transfer: transfer, with: validations)
                guard head.status.code >= 400, !chain.isEmpty else { return (head, transfer) }
                let failure = CurlewError(
                    .unacceptableStatus, "HTTP status \(head.status.code) \(head.status.reasonPhrase)",
                    url: request.url, responseHead: head)
                let stop = await retryOrStop(
                    after: failure, request: request, attempt: attempt, attemptStart: attemptStart, chain: chain,
                    resumption: &resumption,
                    beforeWaiting: { transfer.cancel(.cancelled, "a retrier asked for another attempt") })
                guard let stop else { continue }
                // Cancelled while deciding: the caller asked to stop. Anything else keeps the response.
                if [.cancelled, .taskCancelled, .sessionShutdown].contains(stop.kind) {
                    transfer.cancel(stop.kind, stop.message)
                    throw stop
                }
                return (head, transfer)
            } catch {
                if let final = await retryOrStop(
                    after: error, request: request, attempt: attempt, attemptStart: attemptStart, chain: chain,
                    resumption: &resumption)
                {
                    monitor.map { $0.monitor.request($0.id, didFinish: request, with: .failure(final), attempts: attempt) }
                    throw final
                }
            }
        }
    }

    /// Waits for an attempt's head; a failure passes through the failure interceptors.
    private func head(of transfer: Transfer, request: OutgoingRequest, attempt: Int, chain: InterceptorChain)
        async throws(CurlewError) -> HTTPResponse
    {
        do {
            return try await transfer.head()
        } catch {
            guard !chain.isEmpty, !isFinal(error) else { throw error }
            throw await chain.intercept(error, request: request, attempt: attempt, for: session)
        }
    }

    /// Runs the validations on a streamed head; a rejection cancels the transfer.
    private func validate(
        _ head: HTTPResponse, of request: OutgoingRequest, transfer: Transfer, with validations: [ValidationStep]
    ) throws(CurlewError) {
        do throws(CurlewError) {
            try validate(head, of: request, body: nil, with: validations)
        } catch {
            transfer.cancel(.cancelled, "validation failed")
            throw error
        }
    }
}
