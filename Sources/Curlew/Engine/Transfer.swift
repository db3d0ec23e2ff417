import CCurlShims
import Foundation
import HTTPTypes
import Synchronization

/// One network transfer (with its redirect hops): the meeting point of the curl thread and
/// the tasks that consume it.
///
/// Shared state lives in a ``TransferStateMachine`` behind a `Mutex`; every action it returns
/// runs after the lock is released. State that only the curl thread touches lives in
/// ``TransferContext``, the superclass: one object holds both.
///
/// Code that runs on a consumer's thread (the waits, `cancel`) reads nothing of the
/// superclass but its `let`s: the URL in its errors is ``TransferContext/firstURL``, never the
/// current hop's `request`, which the curl thread replaces at a redirect.
final class Transfer: TransferContext, @unchecked Sendable {
    // Safe: the stored properties below are `let`s of Sendable types; of the superclass, the
    // `var`s are confined to the curl thread (see ``TransferContext``) and only its `let`s
    // are read elsewhere (see above).
    enum Mode: Sendable {
        /// Collect the body in memory, up to a maximum size.
        case collect
        /// Hand the body to one consumer through a bounded buffer, with backpressure.
        case stream
        /// Write the body to a file; with resume data, continue its partial file.
        case download(DownloadDestination, DownloadOptions, DownloadResumeData?)

        /// The same download, continuing the partial file of `resumeData`.
        func resuming(_ resumeData: DownloadResumeData) -> Mode {
            guard case .download(let destination, let options, _) = self else { return self }
            return .download(destination, options, resumeData)
        }

        /// Whether this is a download that continues a partial file.
        var isResuming: Bool {
            if case .download(_, _, .some) = self { return true }
            return false
        }
    }

    let state: Mutex<TransferStateMachine>
    let events: EventSink?
    /// The loop that runs the transfer (also the executor of a stubbed transfer's task).
    let loop: CurlLoop
    /// A stream's tracing and metrics, which end with the transfer; nil for other modes, whose
    /// pipeline ends them, and when nothing observes requests.
    private let probe: RequestProbe?

    init(
        request: OutgoingRequest, mode: Mode, settings: TransferSettings, reportsProgress: Bool, events: EventSink?,
        loop: CurlLoop, probe: RequestProbe? = nil
    ) {
        self.probe = probe
        state = Mutex(TransferStateMachine(streamBufferSize: settings.streamBufferSize))
        self.events = events
        self.loop = loop
        super.init(request: request, mode: mode, settings: settings, reportsProgress: reportsProgress)
    }

    /// The curl thread's part of this transfer: the transfer itself, as its superclass.
    @inline(__always)
    var context: TransferContext { self }

    // MARK: Consumers

    /// Starts the transfer if it has not started yet.
    func start() {
        guard state.withLock({ $0.start() }) == .submit else { return }
        if let refusal = loop.submit(self) { finish(.failure(refusal)) }
    }

    /// Starts the transfer and waits for its end. Task cancellation is not watched here: the
    /// request pipeline, the only caller, forwards it to the transfer already.
    nonisolated(nonsending) func outcome() async throws(CurlewError) -> TransferOutcome {
        start()
        return try await wait { state, continuation in state.waitForOutcome(continuation) }
    }

    /// Starts the transfer and waits for the final response head.
    nonisolated(nonsending) func head() async throws(CurlewError) -> HTTPResponse {
        try await startAndWait { state, continuation in state.waitForHead(continuation) }.response
    }

    /// Starts the transfer and parks on `register`, which either keeps the continuation for
    /// the curl thread to resume or returns the result already known. Task cancellation
    /// cancels the transfer.
    private nonisolated(nonsending) func startAndWait<T: Sendable>(
        _ register: @escaping (inout TransferStateMachine, UnsafeContinuation<T, any Error>) -> Result<T, CurlewError>?
    ) async throws(CurlewError) -> T {
        start()
        // withTaskCancellationHandler has no typed throws: the result carries the error through.
        let result = await withTaskCancellationHandler { () async -> Result<T, CurlewError> in
            do throws(CurlewError) { return .success(try await wait(register)) } catch { return .failure(error) }
        } onCancel: {
            cancel(.taskCancelled, "the task awaiting the request was cancelled")
        }
        return try result.get()
    }

    /// Parks on `register` (see ``startAndWait(_:)``), without watching for cancellation.
    private nonisolated(nonsending) func wait<T: Sendable>(
        _ register: @escaping (inout TransferStateMachine, UnsafeContinuation<T, any Error>) -> Result<T, CurlewError>?
    ) async throws(CurlewError) -> T {
        do {
            return try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<T, any Error>) in
                if let result = state.withLock({ register(&$0, continuation) }) {
                    continuation.resume(with: result.mapError { $0 as any Error })
                }
            }
        } catch {
            throw error as? CurlewError ?? CurlewError(.transport, "\(error)", url: context.firstURL)
        }
    }

    /// The next chunk of a streamed body, or nil at its end.
    func nextChunk() async throws(CurlewError) -> Data? {
        start()
        let immediate = state.withLock { $0.nextChunk() }
        if case .wait = immediate {} else { return try deliver(immediate) }
        do {
            return try await withTaskCancellationHandler {
                try await withUnsafeThrowingContinuation { (continuation: TransferStateMachine.ChunkContinuation) in
                    let action = state.withLock { $0.waitForChunk(continuation) }
                    if case .resumeNow(let next) = action {
                        continuation.resume(with: Result { try deliver(next) })
                    }
                }
            } onCancel: {
                cancel(.taskCancelled, "the task reading the body was cancelled")
            }
        } catch {
            throw error as? CurlewError ?? CurlewError(.transport, "\(error)", url: context.firstURL)
        }
    }

    private func deliver(_ next: TransferStateMachine.NextChunk) throws(CurlewError) -> Data? {
        switch next {
        case .chunk(let data, let unpause):
            if unpause { loop.unpause(self) }
            return data
        case .end, .wait:
            return nil
        case .failure(let error):
            throw error
        }
    }

    /// Cancels the transfer; a cancel before the start is kept and wins when it starts. With
    /// `keepingPartialDownload`, a download keeps its partial file and its error carries
    /// resume data (when it can be resumed).
    func cancel(_ kind: CurlewError.Kind, _ message: String, keepingPartialDownload: Bool = false) {
        var reason = CurlewError(kind, message, url: context.firstURL)
        if keepingPartialDownload { reason = reason.with(downloadResumeData: nil, keepsPartialDownload: true) }
        switch state.withLock({ $0.cancel(reason) }) {
        case .none: break
        case .stopOnLoop: loop.cancel(self)
        case .resume(let resumptions): resumptions.run()
        }
    }

    /// Asks the loop to resume a paused transfer (more room to receive, or more to send).
    func unpause() { loop.unpause(self) }

    /// Suspends the transfer: one not started starts only when resumed; a running one is
    /// paused on the curl thread. Returns whether the curl loop reports the suspension in the
    /// events (it does for a running transfer, once paused); otherwise the caller does.
    func suspend() -> Bool {
        switch state.withLock({ $0.suspend() }) {
        case .pauseOnLoop:
            loop.suspend(self)
            return true
        case .deferStart, .none:
            return false
        }
    }

    /// Resumes a suspended transfer. Returns whether the curl loop reports the resumption.
    func resume() -> Bool {
        switch state.withLock({ $0.resume() }) {
        case .resumeOnLoop:
            loop.resume(self)
            return true
        case .submit:
            if let refusal = loop.submit(self) { finish(.failure(refusal)) }
            return false
        case .none:
            return false
        }
    }

    // MARK: The curl thread

    /// Called on the curl thread when the final head arrived.
    func deliverHead(_ head: ResponseHead) {
        let waiters = state.withLock { $0.headReceived(head) }
        waiters.forEach { $0.resume(returning: head) }
        events?.emit(.response(head.response))
    }

    /// Called on the curl thread for each streamed chunk. Returns what the write callback
    /// returns: the count taken, `CURL_WRITEFUNC_PAUSE`, or 0 to abort.
    func deliverChunk(_ chunk: UnsafeRawBufferPointer) -> Int {
        deliverChunk(Data(chunk))
    }

    /// Called on the curl thread for a streamed chunk; with `evenIfFull` (after
    /// ``reserveRoomForChunk()``) it is never refused with a pause.
    func deliverChunk(_ data: Data, evenIfFull: Bool = false) -> Int {
        switch state.withLock({ $0.chunkReceived(data, evenIfFull: evenIfFull) }) {
        case .deliver(let waiter):
            waiter.resume(returning: data)
            return data.count
        case .buffered:
            return data.count
        case .pause:
            return Int(curlew_CURL_WRITEFUNC_PAUSE)
        case .abort:
            return 0
        }
    }

    /// Called on the curl thread before bytes are consumed that cannot be handed back to
    /// libcurl: whether the chunk they make will be taken (see
    /// ``TransferStateMachine/reserveRoomForChunk()``).
    func reserveRoomForChunk() -> TransferStateMachine.ChunkAction {
        state.withLock { $0.reserveRoomForChunk() }
    }

    /// Called once, on the curl thread or on a failed start, with the result.
    func finish(_ result: Result<TransferOutcome, CurlewError>) {
        let resumptions = state.withLock { $0.finish(result) }
        resumptions.run()
        if let probe {
            if case .success(let outcome) = result { probe.transferred(outcome.metrics) }
            probe.finish(result)
        }
    }
}
