import Foundation
import HTTPTypes
import Synchronization

/// The machinery shared by data and download requests: lazy start, one shared pipeline run
/// for any number of consumers, adapters, response interceptors, validation, retries (also
/// after serializer failures), cancellation, events and event monitors.
final class RequestCore: Sendable {
    /// A finished pipeline run: the outcome of the last attempt and how many attempts it took.
    ///
    /// A class, so that the `Result<Completed, CurlewError>` the run publishes, stores and hands
    /// to each consumer is one reference either way. As a struct of two references and three
    /// other words it made that result an enum of two payloads that were copied and destroyed
    /// through outlined value-witness code: 2,100 instructions per small request more on
    /// `Session.taskExecutor`, 2,600 on the default executor, than the class's one allocation.
    final class Completed: Sendable {
        let outcome: TransferOutcome
        let attempts: Int
        /// The last attempt's request as the adapters made it (before redirects).
        let request: OutgoingRequest
        /// When the last attempt started.
        let attemptStart: ContinuousClock.Instant

        init(outcome: TransferOutcome, attempts: Int, request: OutgoingRequest, attemptStart: ContinuousClock.Instant) {
            self.outcome = outcome
            self.attempts = attempts
            self.request = request
            self.attemptStart = attemptStart
        }
    }

    /// What a consumer does after its serializer failed.
    enum SerializationRecovery: Sendable {
        /// The request was tried again: serialize this newer result.
        case serializeAgain(Completed)
        /// Give up with this error.
        case fail(CurlewError)
    }

    fileprivate enum Phase {
        case idle
        case running(waiters: [CheckedContinuation<Completed, any Error>])
        case streaming
        case done(Result<Completed, CurlewError>)
    }

    struct State {
        fileprivate var phase = Phase.idle
        var validations: [ValidationStep] = []
        /// Whether `validate()` was called, which makes the session's default validation redundant.
        var hasStandardValidation = false
        /// Set by `skipDefaultValidation()`.
        var skipsDefaultValidation = false
        var interceptors: [any RequestInterceptor] = []
        /// Set by `authenticate`; overrides the build's ``RequestOptions/httpCredential``.
        var credential: HTTPCredential?
        var transfer: Transfer?
        var cancelReason: CurlewError?
        /// Ends the wait in progress (before a retry, for a retrier's decision, or for
        /// connectivity), so that `cancel()` ends it at once.
        var endWait: (@Sendable () -> Void)?
        var firstAttemptStart: ContinuousClock.Instant?
        /// The last attempt whose serializer failure was shown to the retriers.
        var consultedAttempt = 0
        /// Whether the owner suspended the request; every attempt's transfer inherits it.
        var isSuspended = false
        /// For printing: the adapted request of a stream, or of a failed run's last attempt.
        var adaptedRequest: OutgoingRequest?

        /// Whether the run has ended (read by the suspension extension).
        var isDone: Bool {
            if case .done = phase { return true }
            return false
        }
    }

    let session: Session
    let build: Result<OutgoingRequest, CurlewError>
    let mode: Transfer.Mode
    let events = EventSink()
    /// The session's event monitors with this request's identifier; nil when there are none.
    let monitor: RequestMonitor?
    /// False for requests an interceptor makes itself, which skip the session's interceptors.
    let usesSessionInterceptors: Bool
    /// Internal rather than private for the extensions in other files (validation).
    let state = Mutex(State())

    init(session: Session, build: Result<OutgoingRequest, CurlewError>, mode: Transfer.Mode, usesSessionInterceptors: Bool = true) {
        self.session = session
        self.build = build
        self.mode = mode
        self.usesSessionInterceptors = usesSessionInterceptors
        monitor = RequestMonitor(session.configuration.eventMonitors)
        if let monitor { monitor.monitor.requestCreated(monitor.id, request: try? build.get()) }
    }

    var url: URL? { try? build.get().url }

    var isDownload: Bool {
        if case .download = mode { return true }
        return false
    }

    func addInterceptor(_ interceptor: any RequestInterceptor) {
        state.withLock { $0.interceptors.append(interceptor) }
    }

    /// Credentials for this request's origin; they apply to attempts that start afterwards.
    func setCredential(_ credential: HTTPCredential) {
        state.withLock { $0.credential = credential }
    }

    /// The request as built, with the credentials `authenticate` gave.
    var effectiveBuild: Result<OutgoingRequest, CurlewError> {
        guard let credential = state.withLock({ $0.credential }) else { return build }
        return build.map { request in
            var request = request
            request.options.httpCredential = credential
            return request
        }
    }

    // MARK: Collected results

    /// Runs the pipeline once, however many consumers ask; later consumers share the result.
    nonisolated(nonsending) func completed() async throws(CurlewError) -> Completed {
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
            // `driving(_:)`, spelled out: one closure level less on every request's path
            // (about 330 instructions).
            let result = await withTaskCancellationHandler {
                await runPipeline(firstAttempt: 1)
            } onCancel: {
                cancelForAwaitingTask()
            }
            publish(result, emittingEvents: true)
            return try result.get()
        case .wait:
            return try await waitForRun()
        case .done(let result):
            return try result.get()
        case .conflict:
            throw CurlewError(
                .streamAlreadyConsumed, "the body is being consumed as a stream, so it cannot also be collected",
                url: url)
        }
    }

    /// After a serializer failed on `failed`, shows the failure to the retriers — once per
    /// attempt, however many serializers fail — and runs the request again if one says so.
    nonisolated(nonsending) func recover(fromSerializationFailure error: CurlewError, of failed: Completed) async -> SerializationRecovery {
        while true {
            enum Role { case drive, wait, recovered(SerializationRecovery) }
            let role = state.withLock { state -> Role in
                switch state.phase {
                case .running: return .wait
                case .done(.success(let current)) where current.attempts > failed.attempts:
                    return .recovered(.serializeAgain(current))
                case .done(.failure(let newer)):
                    return .recovered(.fail(newer))
                case .done(.success):
                    guard state.consultedAttempt < failed.attempts else { return .recovered(.fail(error)) }
                    state.consultedAttempt = failed.attempts
                    state.phase = .running(waiters: [])
                    return .drive
                case .idle, .streaming:
                    return .recovered(.fail(error))
                }
            }
            switch role {
            case .recovered(let recovery):
                return recovery
            case .wait:
                _ = try? await waitForRun()
            case .drive:
                var recovery = SerializationRecovery.fail(error)
                let result = await driving { () async -> Result<Completed, CurlewError> in
                    let chain = self.chain()
                    // A serialization failure follows a completed download: nothing to resume.
                    var resumption: DownloadResumeData?
                    if let final = await self.retryOrStop(
                        after: error, request: failed.request, attempt: failed.attempts,
                        attemptStart: failed.attemptStart, chain: chain, resumption: &resumption)
                    {
                        recovery = .fail(final)
                        return .success(failed)
                    }
                    let rerun = await self.runPipeline(firstAttempt: failed.attempts + 1)
                    switch rerun {
                    case .success(let newer): recovery = .serializeAgain(newer)
                    case .failure(let newer): recovery = .fail(newer)
                    }
                    return rerun
                }
                publish(result, emittingEvents: false)
                return recovery
            }
        }
    }

    /// Runs `work` as the driver of the shared run: cancelling the driving task cancels the request.
    private nonisolated(nonsending) func driving(
        _ work: nonisolated(nonsending) () async -> Result<Completed, CurlewError>
    ) async -> Result<Completed, CurlewError> {
        await withTaskCancellationHandler {
            await work()
        } onCancel: {
            cancelForAwaitingTask()
        }
    }

    /// The cancellation handler of a task that drives or awaits the run.
    private func cancelForAwaitingTask() {
        cancel(.taskCancelled, "the task awaiting the request was cancelled")
    }

    /// Ends a run: records the result and resumes the consumers that waited for it.
    private func publish(_ result: Result<Completed, CurlewError>, emittingEvents: Bool) {
        let waiters = state.withLock { state -> [CheckedContinuation<Completed, any Error>] in
            defer { state.phase = .done(result) }
            if case .running(let waiters) = state.phase { return waiters }
            return []
        }
        for waiter in waiters { waiter.resume(with: result.mapError { $0 as any Error }) }
        guard emittingEvents else { return }
        switch result {
        case .success(let completed):
            events.emit(.completed(TransferCompletion(completed.outcome)))
            events.finish(throwing: nil)
        case .failure(let error):
            events.finish(throwing: error)
        }
    }

    /// Waits for the run in progress, driven by another consumer.
    private nonisolated(nonsending) func waitForRun() async throws(CurlewError) -> Completed {
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
                cancelForAwaitingTask()
            }
        } catch {
            throw error as? CurlewError ?? CurlewError(.transport, "\(error)", url: url)
        }
    }

    // MARK: The pipeline

    func chain() -> InterceptorChain {
        let own = state.withLock { $0.interceptors }
        guard usesSessionInterceptors else { return InterceptorChain(own) }
        return InterceptorChain(own.isEmpty ? session.interceptors : session.interceptors + own)
    }

    /// Adapt, transfer, intercept the response, validate; on failure ask the retriers, and
    /// go round again when one says so. Attempts are numbered from `firstAttempt`.
    private nonisolated(nonsending) func runPipeline(firstAttempt: Int) async -> Result<Completed, CurlewError> {
        let base: OutgoingRequest
        switch effectiveBuild {
        case .success(let request): base = request
        case .failure(let error):
            monitor.map { $0.monitor.request($0.id, didFinish: nil, with: .failure(error), attempts: 0) }
            return .failure(error)
        }
        let usesDefaultValidation = session.configuration.usesDefaultValidation
        let validations = state.withLock { state in
            if state.firstAttemptStart == nil { state.firstAttemptStart = .now }
            return state.validationsForRun(usesDefaultValidation: usesDefaultValidation)
        }
        let chain = chain()
        // Nil unless a tracer or a metrics factory observes requests.
        let probe = session.instrumentation.begin(base)
        var attempt = firstAttempt - 1
        // A retry that continues a download's partial file (see `RetryPolicy.resumesDownloads`).
        var resumption: DownloadResumeData?
        while true {
            attempt += 1
            let attemptStart = ContinuousClock.now
            var attemptBase = base
            var mode = mode
            if let resumption {
                attemptBase.headerFields[.range] = "bytes=\(resumption.bytesOnDisk)-"
                attemptBase.headerFields[.ifRange] = resumption.validator
                mode = mode.resuming(resumption)
            }
            probe?.attemptStarting(attempt, request: &attemptBase)
            var request = attemptBase
            do {
                if connectivityWaitLimit(for: attemptBase) != nil {
                    try await waitForConnectivity(before: attemptBase, attempt: attempt)
                }
                // Without interceptors, skip the async hops: the build already validated the URL.
                if !chain.isEmpty { request = try await chain.adapt(attemptBase, for: session) }
                let transferSettings = session.transferSettings
                if transferSettings.requiresHTTPSCheck {
                    try HTTPSRequirement.apply(
                        to: &request, hsts: transferSettings.hsts, httpsOnly: transferSettings.httpsOnly)
                }
                if let monitor {
                    monitor.monitor.request(monitor.id, didAdapt: base, to: request, attempt: attempt)
                    monitor.monitor.request(monitor.id, didStart: request, attempt: attempt)
                }
                var outcome: TransferOutcome
                if let cache = session.configuration.cache {
                    outcome = try await cachedOutcome(of: request, mode: mode, cache: cache) { (sent) async throws(CurlewError) in
                        try await self.networkOutcome(of: sent, mode: mode, attempt: attempt, chain: chain)
                    }
                } else {
                    outcome = try await networkOutcome(of: request, mode: mode, attempt: attempt, chain: chain)
                }
                // What a response taught the HSTS store reaches its file from this task, not the curl thread.
                if transferSettings.requiresHTTPSCheck { transferSettings.hsts?.saveIfChanged() }
                // And what responses taught the Alt-Svc store, from here too.
                transferSettings.alternativeServices?.store.saveIfChanged()
                probe?.transferred(outcome.metrics)
                monitor.map { $0.monitor.request($0.id, didGather: outcome.metrics, for: request, attempt: attempt) }
                outcome = try await accepted(outcome, chain: chain, attempt: attempt, validations: validations)
                monitor.map {
                    $0.monitor.request($0.id, didFinish: request, with: .success(TransferCompletion(outcome)), attempts: attempt)
                }
                probe?.finish(.success(outcome))
                return .success(Completed(outcome: outcome, attempts: attempt, request: request, attemptStart: attemptStart))
            } catch {
                // Resume data keeps the request as built, not as the interceptors adapted it.
                let error = error.downloadResumeData.map {
                    error.with(downloadResumeData: $0.asBuilt(by: base, adaptedTo: request), keepsPartialDownload: error.keepsPartialDownload)
                } ?? error
                if let final = await retryOrStop(
                    after: error, request: request, attempt: attempt, attemptStart: attemptStart, chain: chain,
                    resumption: &resumption)
                {
                    monitor.map { $0.monitor.request($0.id, didFinish: request, with: .failure(final), attempts: attempt) }
                    probe?.finish(.failure(final))
                    state.withLock { $0.adaptedRequest = request }
                    return .failure(final)
                }
            }
        }
    }

    /// One transfer of `request`, registered so that cancel, suspend and resume reach it.
    nonisolated(nonsending) func networkOutcome(of request: OutgoingRequest, mode: Transfer.Mode, attempt: Int, chain: InterceptorChain)
        async throws(CurlewError) -> TransferOutcome
    {
        let transfer = Transfer(
            request: request, mode: mode,
            settings: session.transferSettings(for: request.options), reportsProgress: events.hasListeners,
            events: events, loop: session.loop)
        try register(transfer)
        return try await outcome(of: transfer, request: request, attempt: attempt, chain: chain)
    }

    /// Passes an outcome through the response interceptors and the validations. A download's
    /// file is moved into place only when they accept the response; a rejected download is a
    /// failed one whose temporary file is removed, so the destination is never touched (a file
    /// already there stays) and a retry can write there again.
    private nonisolated(nonsending) func accepted(
        _ outcome: TransferOutcome, chain: InterceptorChain, attempt: Int, validations: [ValidationStep]
    ) async throws(CurlewError) -> TransferOutcome {
        do throws(CurlewError) {
            var outcome = outcome
            if !chain.isEmpty { outcome = try await chain.intercept(outcome, for: session, attempts: attempt) }
            try validate(outcome, with: validations)
            if let pending = outcome.pendingDownload {
                do throws(CurlewError) {
                    _ = try pending.commit()
                } catch {
                    throw error.adding(url: outcome.url, head: outcome.head)
                }
            }
            return outcome
        } catch {
            outcome.pendingDownload?.discard()
            throw error
        }
    }

    /// Waits for a transfer's outcome; a failure passes through the response interceptors.
    private nonisolated(nonsending) func outcome(of transfer: Transfer, request: OutgoingRequest, attempt: Int, chain: InterceptorChain)
        async throws(CurlewError) -> TransferOutcome
    {
        do {
            return try await outcome(of: transfer, request: request, attempt: attempt)
        } catch {
            guard !chain.isEmpty, !isFinal(error) else { throw error }
            throw await chain.intercept(error, request: request, attempt: attempt, for: session)
        }
    }

    /// Waits for a transfer's outcome; with monitors, also reports its head as soon as it arrives.
    private nonisolated(nonsending) func outcome(of transfer: Transfer, request: OutgoingRequest, attempt: Int) async throws(CurlewError)
        -> TransferOutcome
    {
        // `driving` forwards task cancellation to the transfer already.
        guard let monitor else { return try await transfer.outcome() }
        async let watched: Void = Self.reportHead(of: transfer, to: monitor, request: request, attempt: attempt)
        do {
            let outcome = try await transfer.outcome()
            await watched
            return outcome
        } catch {
            await watched
            throw error
        }
    }

    private static func reportHead(of transfer: Transfer, to monitor: RequestMonitor, request: OutgoingRequest, attempt: Int) async {
        if let head = try? await transfer.head() {
            monitor.monitor.request(monitor.id, didReceive: head, for: request, attempt: attempt)
        }
    }

    /// Shows a failed attempt to the retriers (once). Returns nil to try again — after the
    /// delay a retrier asked for — or the error to fail with. A download retried with resume
    /// data continues its partial file (set in `resumption`) when the chain resumes downloads or
    /// the download was itself resumed; otherwise the partial file is removed.
    func retryOrStop(
        after error: CurlewError, request: OutgoingRequest, attempt: Int, attemptStart: ContinuousClock.Instant,
        chain: InterceptorChain, resumption: inout DownloadResumeData?, beforeWaiting: (() -> Void)? = nil
    ) async -> CurlewError? {
        if isFinal(error) || chain.isEmpty { return error }
        let firstStart = state.withLock { $0.firstAttemptStart } ?? attemptStart
        let context = RetryContext(attempt: attempt, firstAttemptStart: firstStart, attemptStart: attemptStart)
        let delay: Duration
        // `cancel()` ends a retrier's wait (such as an `OfflineRetrier` waiting for the network).
        let (decision, cancelled) = await cancellably {
            await chain.decide(request, for: self.session, dueTo: error, context: context)
        }
        if let cancelled { return Self.stopped(by: cancelled, partial: error.downloadResumeData) }
        switch decision {
        case .doNotRetry:
            return error
        case .doNotRetryWithError(let replacement):
            let final = replacement as? CurlewError
                ?? CurlewError(.retryLimitExceeded, "\(replacement)", url: request.url, underlying: replacement)
            // The partial file stays reachable from the error the caller gets.
            guard let resumeData = error.downloadResumeData, final.downloadResumeData == nil else { return final }
            return final.with(downloadResumeData: resumeData)
        case .retry:
            delay = .zero
        case .retryWithDelay(let wait):
            delay = max(.zero, wait)
        }
        if let body = request.body, !body.isReplayable {
            return CurlewError(
                .bodyNotReplayable,
                "a retrier asked to try again after '\(error.kind): \(error.message)', but the body is a one-shot stream that cannot be sent twice; build it with RequestBody.stream(length:_:) and a factory to allow retries",
                url: request.url, responseHead: error.responseHead, responseBody: error.responseBody, underlying: error
            ).with(downloadResumeData: error.downloadResumeData)
        }
        resumption = nil
        if let resumeData = error.downloadResumeData {
            if chain.resumesDownloads || mode.isResuming {
                resumption = resumeData
            } else {
                // Another attempt starts over: nobody will resume from this partial file.
                resumeData.discardPartialFile()
            }
        }
        beforeWaiting?()
        monitor.map { $0.monitor.request($0.id, willRetry: request, after: error, attempt: attempt, delay: delay) }
        var stopped: CurlewError?
        if delay > .zero { stopped = await sleep(for: delay, url: request.url) }
        guard let final = stopped ?? state.withLock({ $0.cancelReason }) else { return nil }
        defer { resumption = nil }
        return Self.stopped(by: final, partial: resumption)
    }

    /// The error of a request cancelled between attempts: the partial file goes, unless resume
    /// data was asked for.
    private static func stopped(by reason: CurlewError, partial: DownloadResumeData?) -> CurlewError {
        guard let partial else { return reason }
        if reason.keepsPartialDownload { return reason.with(downloadResumeData: partial) }
        partial.discardPartialFile()
        return reason
    }

    /// Errors no retrier is asked about and no response interceptor sees: the caller's own
    /// cancellation, a shut-down session, a body that cannot be sent again.
    func isFinal(_ error: CurlewError) -> Bool {
        [.cancelled, .taskCancelled, .streamDropped, .sessionShutdown, .bodyNotReplayable].contains(error.kind)
    }

    /// Records the transfer of the current attempt so that `cancel()`, `suspend()` and
    /// `resume()` reach it; a suspended request's transfer starts suspended.
    func register(_ transfer: Transfer) throws(CurlewError) {
        let reason = state.withLock { state -> CurlewError? in
            state.transfer = transfer
            // Under the lock, so that a concurrent `resume()` finds the transfer suspended.
            if state.isSuspended { _ = transfer.suspend() }
            return state.cancelReason
        }
        if let reason {
            transfer.cancel(reason.kind, reason.message, keepingPartialDownload: reason.keepsPartialDownload)
            throw reason
        }
    }

    // MARK: Streaming

    /// Moves an idle request into streaming mode; a request already started cannot stream.
    func claimStream() throws(CurlewError) {
        let conflict = state.withLock { state -> Bool in
            guard case .idle = state.phase else { return true }
            state.phase = .streaming
            return false
        }
        if conflict {
            throw CurlewError(.streamAlreadyConsumed, "the request was already started; a body can be streamed only once", url: url)
        }
    }

    /// What printing the request shows, read at once: a finished run's result, the adapted
    /// request of a stream or failed run, and the last attempt's transfer (a stream's head).
    func printState() -> (result: Result<Completed, CurlewError>?, adapted: OutgoingRequest?, transfer: Transfer?) {
        state.withLock { state in
            if case .done(let result) = state.phase { return (result, state.adaptedRequest, state.transfer) }
            return (nil, state.adaptedRequest, state.transfer)
        }
    }

    // MARK: Cancelling and events

    /// Cancels the request, its current transfer and any wait (for connectivity, for a
    /// retrier's decision, before a retry); remembered if it has not started yet.
    func cancel(_ kind: CurlewError.Kind, _ message: String, keepingPartialDownload: Bool = false) {
        var reason = CurlewError(kind, message, url: url)
        if keepingPartialDownload { reason = reason.with(downloadResumeData: nil, keepsPartialDownload: true) }
        let (transfer, endWait) = state.withLock { state -> (Transfer?, (@Sendable () -> Void)?) in
            if state.cancelReason == nil { state.cancelReason = reason }
            return (state.transfer, state.endWait)
        }
        transfer?.cancel(kind, message, keepingPartialDownload: keepingPartialDownload)
        endWait?()
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
