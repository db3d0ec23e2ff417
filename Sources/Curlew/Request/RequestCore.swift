import Foundation
import HTTPTypes
import Synchronization

/// The machinery shared by data and download requests: lazy start, one shared pipeline run
/// for any number of consumers, adapters, validation, retries, cancellation and events.
final class RequestCore: Sendable {
    /// A finished pipeline run: the outcome of the last attempt and how many attempts it took.
    struct Completed: Sendable {
        var outcome: TransferOutcome
        var attempts: Int
    }

    private enum Phase {
        case idle
        case running(waiters: [CheckedContinuation<Completed, any Error>])
        case streaming
        case done(Result<Completed, CurlewError>)
    }

    private struct State {
        var phase = Phase.idle
        var validations: [ResponseValidation] = []
        var interceptors: [any RequestInterceptor] = []
        var transfer: Transfer?
        var cancelReason: CurlewError?
    }

    let session: Session
    let build: Result<OutgoingRequest, CurlewError>
    let mode: Transfer.Mode
    let events = EventSink()
    private let state = Mutex(State())

    init(session: Session, build: Result<OutgoingRequest, CurlewError>, mode: Transfer.Mode) {
        self.session = session
        self.build = build
        self.mode = mode
    }

    var url: URL? { try? build.get().url }

    func addValidation(_ validation: @escaping ResponseValidation) {
        state.withLock { $0.validations.append(validation) }
    }

    func addInterceptor(_ interceptor: any RequestInterceptor) {
        state.withLock { $0.interceptors.append(interceptor) }
    }

    // MARK: Collected results

    /// Runs the pipeline once, however many consumers ask; later consumers share the result.
    func completed() async throws(CurlewError) -> Completed {
        enum Role { case drive, wait, done(Result<Completed, CurlewError>), conflict }
        let role = state.withLock { state -> Role in
            switch state.phase {
            case .idle:
                state.phase = .running(waiters: [])
                return .drive
            case .running: return .wait
            case .streaming: return .conflict
            case .done(let result): return .done(result)
            }
        }
        switch role {
        case .drive:
            let result = await withTaskCancellationHandler {
                await runPipeline()
            } onCancel: {
                cancel(.taskCancelled, "the task awaiting the request was cancelled")
            }
            let waiters = state.withLock { state -> [CheckedContinuation<Completed, any Error>] in
                defer { state.phase = .done(result) }
                if case .running(let waiters) = state.phase { return waiters }
                return []
            }
            for waiter in waiters { waiter.resume(with: result.mapError { $0 as any Error }) }
            switch result {
            case .success(let completed):
                events.emit(.completed(TransferCompletion(completed.outcome)))
                events.finish(throwing: nil)
            case .failure(let error):
                events.finish(throwing: error)
            }
            return try result.get()
        case .wait:
            do {
                return try await withTaskCancellationHandler {
                    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Completed, any Error>) in
                        let ready = state.withLock { state -> Result<Completed, CurlewError>? in
                            switch state.phase {
                            case .running(var waiters):
                                waiters.append(continuation)
                                state.phase = .running(waiters: waiters)
                                return nil
                            case .done(let result): return result
                            case .idle, .streaming:
                                return .failure(CurlewError(.streamAlreadyConsumed, "internal: unexpected request phase", url: url))
                            }
                        }
                        if let ready { continuation.resume(with: ready.mapError { $0 as any Error }) }
                    }
                } onCancel: {
                    cancel(.taskCancelled, "the task awaiting the request was cancelled")
                }
            } catch {
                throw error as? CurlewError ?? CurlewError(.transport, "\(error)", url: url)
            }
        case .done(let result):
            return try result.get()
        case .conflict:
            throw CurlewError(
                .streamAlreadyConsumed, "the body is being consumed as a stream, so it cannot also be collected",
                url: url)
        }
    }

    private func runPipeline() async -> Result<Completed, CurlewError> {
        let base: OutgoingRequest
        switch build {
        case .success(let request): base = request
        case .failure(let error): return .failure(error)
        }
        let (validations, own) = state.withLock { ($0.validations, $0.interceptors) }
        let interceptors = session.interceptors + own
        var attempt = 0
        while true {
            attempt += 1
            var request = base
            let error: CurlewError
            do {
                request = try await adapt(base, with: interceptors)
                let transfer = Transfer(
                    request: request, mode: mode,
                    settings: TransferSettings(
                        configuration: session.configuration, options: request.options,
                        reportsProgress: events.hasListeners),
                    events: events, loop: session.loop)
                try register(transfer)
                let outcome = try await transfer.outcome()
                try validate(outcome, with: validations)
                return .success(Completed(outcome: outcome, attempts: attempt))
            } catch let failure {
                error = failure
            }
            if isFinal(error) || interceptors.isEmpty { return .failure(error) }
            if let body = request.body, !body.isReplayable {
                return .failure(error)
            }
            switch await retryDecision(for: request, error: error, attempt: attempt, retriers: interceptors) {
            case .retry:
                continue
            case .retryWithDelay(let delay):
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    return .failure(CurlewError(.taskCancelled, "cancelled while waiting to retry", url: request.url))
                }
                if let reason = state.withLock({ $0.cancelReason }) { return .failure(reason) }
            case .doNotRetry:
                return .failure(error)
            case .doNotRetryWithError(let replacement):
                return .failure(
                    replacement as? CurlewError
                        ?? CurlewError(.retryLimitExceeded, "\(replacement)", url: request.url, underlying: replacement))
            }
        }
    }

    private func adapt(_ request: OutgoingRequest, with interceptors: [any RequestInterceptor]) async throws(CurlewError)
        -> OutgoingRequest
    {
        var adapted = request
        for interceptor in interceptors {
            do {
                adapted = try await interceptor.adapt(adapted, for: session)
            } catch let error as CurlewError {
                throw error
            } catch {
                throw CurlewError(.invalidRequest, "an adapter failed: \(error)", url: adapted.url, underlying: error)
            }
        }
        return try RequestBuilder.validate(adapted).get()
    }

    private func retryDecision(
        for request: OutgoingRequest, error: CurlewError, attempt: Int, retriers: [any RequestInterceptor]
    ) async -> RetryResult {
        for retrier in retriers {
            let decision = await retrier.retry(request, for: session, dueTo: error, attempt: attempt)
            if case .doNotRetry = decision { continue }
            return decision
        }
        return .doNotRetry
    }

    private func isFinal(_ error: CurlewError) -> Bool {
        [.cancelled, .taskCancelled, .streamDropped, .sessionShutdown, .bodyNotReplayable].contains(error.kind)
    }

    private func validate(_ outcome: TransferOutcome, with validations: [ResponseValidation]) throws(CurlewError) {
        let body: Data? = if case .collect = mode { outcome.body } else { nil }
        for validation in validations {
            do {
                try validation(outcome.request, outcome.head, body)
            } catch let error as CurlewError {
                throw error
            } catch {
                throw CurlewError(
                    .validationFailed, "validation failed: \(error)", url: outcome.url, responseHead: outcome.head,
                    responseBody: body, underlying: error)
            }
        }
    }

    /// Records the transfer of the current attempt so that `cancel()` reaches it.
    private func register(_ transfer: Transfer) throws(CurlewError) {
        let reason = state.withLock { state -> CurlewError? in
            state.transfer = transfer
            return state.cancelReason
        }
        if let reason {
            transfer.cancel(reason.kind, reason.message)
            throw reason
        }
    }

    // MARK: Streaming

    /// Starts the request in streaming mode: adapters run once and there are no retries.
    /// Validations run on the head.
    func startStream() async throws(CurlewError) -> Transfer {
        let conflict = state.withLock { state -> Bool in
            guard case .idle = state.phase else { return true }
            state.phase = .streaming
            return false
        }
        if conflict {
            throw CurlewError(.streamAlreadyConsumed, "the request was already started; a body can be streamed only once", url: url)
        }
        let base = try build.get()
        let (validations, own) = state.withLock { ($0.validations, $0.interceptors) }
        let request = try await adapt(base, with: session.interceptors + own)
        let transfer = Transfer(
            request: request, mode: .stream,
            settings: TransferSettings(configuration: session.configuration, options: request.options, reportsProgress: events.hasListeners),
            events: events, loop: session.loop)
        try register(transfer)
        let head = try await transfer.head()
        for validation in validations {
            do {
                try validation(request, head, nil)
            } catch {
                transfer.cancel(.cancelled, "validation failed")
                throw error as? CurlewError
                    ?? CurlewError(.validationFailed, "validation failed: \(error)", url: request.url, responseHead: head)
            }
        }
        return transfer
    }

    // MARK: Cancelling and events

    /// Cancels the request and its current transfer; remembered if it has not started yet.
    func cancel(_ kind: CurlewError.Kind, _ message: String) {
        let reason = CurlewError(kind, message, url: url)
        let transfer = state.withLock { state -> Transfer? in
            if state.cancelReason == nil { state.cancelReason = reason }
            return state.transfer
        }
        transfer?.cancel(kind, message)
    }

    /// A new stream of this request's events; starts the request when it has not started.
    func eventStream() -> AsyncThrowingStream<TransferEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: TransferEvent.self)
        guard let id = events.add(continuation) else {
            let finished = state.withLock { state -> Result<Completed, CurlewError>? in
                if case .done(let result) = state.phase { return result }
                return nil
            }
            switch finished {
            case .success(let completed):
                continuation.yield(.completed(TransferCompletion(completed.outcome)))
                continuation.finish()
            case .failure(let error): continuation.finish(throwing: error)
            case nil: continuation.finish()
            }
            return stream
        }
        continuation.onTermination = { [weak self] termination in
            guard let self else { return }
            self.events.remove(id)
            if case .cancelled = termination {
                self.cancel(.streamDropped, "the events stream was dropped before the request finished")
            }
        }
        let shouldStart = state.withLock { state -> Bool in
            if case .idle = state.phase { return true }
            return false
        }
        if shouldStart {
            Task { _ = try? await self.completed() }
        }
        return stream
    }
}

extension TransferCompletion {
    init(_ outcome: TransferOutcome) {
        self.init(
            url: outcome.url, head: outcome.head, metrics: outcome.metrics, redirects: outcome.redirects,
            fileURL: outcome.fileURL, body: outcome.fileURL == nil ? outcome.body : nil)
    }
}
