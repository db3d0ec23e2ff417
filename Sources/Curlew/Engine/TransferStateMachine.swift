import Foundation
import HTTPTypes

/// The life of one transfer, as a plain value.
///
/// curl callbacks (on the curl thread) and consumers (on any task) feed it events; it answers
/// with actions that the caller performs after releasing the lock that guards it. It never
/// calls out itself, so it is tested without a network.
struct TransferStateMachine {
    // Unsafe rather than checked continuations: the machine hands each one out exactly once
    // (`finishIsIdempotent` and the other TransferStateMachineTests pin that down), and a checked
    // one allocates a guard object per wait on the hot path.
    typealias OutcomeContinuation = UnsafeContinuation<TransferOutcome, any Error>
    typealias HeadContinuation = UnsafeContinuation<ResponseHead, any Error>
    typealias ChunkContinuation = UnsafeContinuation<Data?, any Error>

    enum Phase: Equatable {
        case idle
        case running
        case finished
    }

    private(set) var phase: Phase = .idle
    private var result: Result<TransferOutcome, CurlewError>?
    private(set) var cancelReason: CurlewError?
    private var outcomeWaiters = WaiterList<OutcomeContinuation>()
    private var headWaiters = WaiterList<HeadContinuation>()
    private(set) var head: ResponseHead?
    /// Whether the owner suspended the transfer; a start asked for meanwhile waits for resume.
    private(set) var isSuspended = false
    private var startDeferred = false

    // Streaming body: a small bounded buffer between the curl thread and one consumer.
    private var chunks: [Data] = []
    private(set) var bufferedBytes = 0
    private(set) var isPaused = false
    private var chunkWaiter: ChunkContinuation?
    private let highWatermark: Int
    private let lowWatermark: Int

    init(streamBufferSize: Int = 1 << 20) {
        highWatermark = max(1, streamBufferSize)
        lowWatermark = max(0, streamBufferSize / 4)
    }

    /// Resumptions that must run after the lock is released.
    struct Resumptions {
        var outcomeWaiters = WaiterList<OutcomeContinuation>()
        var headWaiters = WaiterList<HeadContinuation>()
        var chunkWaiter: ChunkContinuation?
        var result: Result<TransferOutcome, CurlewError>?

        var isEmpty: Bool { outcomeWaiters.isEmpty && headWaiters.isEmpty && chunkWaiter == nil }

        /// Resumes everyone with the final result.
        func run() {
            guard let result else { return }
            outcomeWaiters.forEach { $0.resume(with: result.mapError { $0 as any Error }) }
            headWaiters.forEach { $0.resume(with: result.map(\.responseHead).mapError { $0 as any Error }) }
            if let chunkWaiter {
                switch result {
                case .success: chunkWaiter.resume(returning: nil)
                case .failure(let error): chunkWaiter.resume(throwing: error)
                }
            }
        }
    }

    // MARK: Starting and cancelling

    enum StartAction: Equatable {
        /// Hand the transfer to the curl loop.
        case submit
        /// Already started or finished; nothing to do.
        case none
    }

    mutating func start() -> StartAction {
        guard phase == .idle else { return .none }
        if isSuspended {
            startDeferred = true
            return .none
        }
        phase = .running
        return .submit
    }

    // MARK: Suspending and resuming

    enum SuspendAction: Equatable {
        /// Not started: a start waits for ``resume()``. The caller reports the suspension.
        case deferStart
        /// Running: pause it on the curl loop, which reports the suspension.
        case pauseOnLoop
        /// Already suspended, or finished: nothing to do.
        case none
    }

    /// The owner suspends the transfer (see `Request.suspend()`).
    mutating func suspend() -> SuspendAction {
        guard !isSuspended, phase != .finished else { return .none }
        isSuspended = true
        return phase == .idle ? .deferStart : .pauseOnLoop
    }

    enum ResumeAction: Equatable {
        /// A start was deferred by the suspension: hand the transfer to the curl loop now.
        case submit
        /// Running: unpause it on the curl loop, which reports the resumption.
        case resumeOnLoop
        /// Not started and nobody asked to start it, or not suspended, or finished.
        case none
    }

    /// The owner resumes a suspended transfer.
    mutating func resume() -> ResumeAction {
        guard isSuspended, phase != .finished else { return .none }
        isSuspended = false
        switch phase {
        case .running:
            return .resumeOnLoop
        case .idle where startDeferred:
            startDeferred = false
            phase = .running
            return .submit
        case .idle, .finished:
            return .none
        }
    }

    enum CancelAction {
        case none
        /// The transfer is on the curl loop: ask the loop to stop it.
        case stopOnLoop
        /// It never started: it is finished now; resume these.
        case resume(Resumptions)
    }

    /// A cancel is recorded even before the transfer starts, so it is never lost.
    mutating func cancel(_ reason: CurlewError) -> CancelAction {
        switch phase {
        case .finished:
            return .none
        case .idle:
            cancelReason = reason
            return .resume(finish(.failure(reason)))
        case .running:
            guard cancelReason == nil else { return .none }
            cancelReason = reason
            chunks.removeAll()
            bufferedBytes = 0
            return .stopOnLoop
        }
    }

    // MARK: Waiting for the end

    /// Registers a waiter for the outcome; returns the result at once if it is known.
    mutating func waitForOutcome(_ continuation: OutcomeContinuation) -> Result<TransferOutcome, CurlewError>? {
        if let result { return result }
        outcomeWaiters.append(continuation)
        return nil
    }

    /// Registers a waiter for the final head; returns it (or the failure) at once if known.
    mutating func waitForHead(_ continuation: HeadContinuation) -> Result<ResponseHead, CurlewError>? {
        if let head { return .success(head) }
        if let result { return result.map(\.responseHead) }
        headWaiters.append(continuation)
        return nil
    }

    // MARK: Events from the curl thread

    /// The final head arrived. Returns the waiters to resume with it.
    mutating func headReceived(_ head: ResponseHead) -> WaiterList<HeadContinuation> {
        guard phase == .running, self.head == nil else { return WaiterList() }
        self.head = head
        return headWaiters.takeAll()
    }

    enum ChunkAction {
        /// Give the chunk straight to the waiting consumer.
        case deliver(ChunkContinuation)
        /// Buffered; tell curl the bytes were taken.
        case buffered
        /// The buffer is full: return `CURL_WRITEFUNC_PAUSE`; curl keeps the bytes.
        case pause
        /// The transfer is being cancelled: tell curl to abort.
        case abort
    }

    /// A chunk arrived. With `evenIfFull` it is buffered even when the buffer is full (the
    /// caller asked ``reserveRoomForChunk()`` before it consumed the bytes it came from).
    mutating func chunkReceived(_ chunk: Data, evenIfFull: Bool = false) -> ChunkAction {
        guard phase == .running, cancelReason == nil else { return .abort }
        if let waiter = chunkWaiter {
            chunkWaiter = nil
            return .deliver(waiter)
        }
        if bufferedBytes >= highWatermark && !evenIfFull {
            isPaused = true
            return .pause
        }
        chunks.append(chunk)
        bufferedBytes += chunk.count
        return .buffered
    }

    /// Asks, before bytes are consumed that cannot be given back to libcurl (a decoder's input),
    /// whether a chunk made of them would be taken: `.buffered` if so, `.pause` (and the
    /// transfer counts as paused, as in ``chunkReceived(_:evenIfFull:)``) or `.abort` if not.
    mutating func reserveRoomForChunk() -> ChunkAction {
        guard phase == .running, cancelReason == nil else { return .abort }
        if chunkWaiter == nil && bufferedBytes >= highWatermark {
            isPaused = true
            return .pause
        }
        return .buffered
    }

    /// The transfer ended. Returns everyone to resume.
    mutating func finish(_ proposed: Result<TransferOutcome, CurlewError>) -> Resumptions {
        guard phase != .finished else { return Resumptions() }
        phase = .finished
        var final = proposed
        if case .failure(let error) = proposed, let cancelReason {
            // The cancel is the reason; a response head that had arrived stays with it (as
            // Alamofire keeps `response`), and a partial file kept for resuming stays reachable.
            let reason = cancelReason.adding(url: error.url, head: error.responseHead)
            final = .failure(error.downloadResumeData.map { reason.with(downloadResumeData: $0) } ?? reason)
        }
        result = final
        var resumptions = Resumptions(
            outcomeWaiters: outcomeWaiters.takeAll(), headWaiters: headWaiters.takeAll(), result: final)
        // A streaming consumer drains what is buffered before it sees the end; one already
        // waiting has nothing buffered, so it is resumed now.
        if let waiter = chunkWaiter {
            chunkWaiter = nil
            resumptions.chunkWaiter = waiter
        }
        if case .failure = final, cancelReason != nil {
            chunks.removeAll()
            bufferedBytes = 0
        }
        return resumptions
    }

    // MARK: The streaming consumer

    enum NextChunk {
        case chunk(Data, unpause: Bool)
        case end
        case failure(CurlewError)
        /// Nothing buffered yet: suspend with ``waitForChunk(_:)``.
        case wait
    }

    mutating func nextChunk() -> NextChunk {
        if !chunks.isEmpty {
            let chunk = chunks.removeFirst()
            bufferedBytes -= chunk.count
            var unpause = false
            if isPaused && bufferedBytes <= lowWatermark {
                isPaused = false
                unpause = true
            }
            return .chunk(chunk, unpause: unpause)
        }
        switch result {
        case .success: return .end
        case .failure(let error): return .failure(error)
        case nil:
            // Pausing needs a buffer above the high watermark and draining unpauses at the
            // low one, so an empty buffer is never paused.
            return .wait
        }
    }

    enum WaitAction {
        /// Suspended; the curl thread will resume the consumer.
        case suspended
        /// Something arrived meanwhile; resume now with it.
        case resumeNow(NextChunk)
    }

    mutating func waitForChunk(_ continuation: ChunkContinuation) -> WaitAction {
        switch nextChunk() {
        case .wait:
            chunkWaiter = continuation
            return .suspended
        case let other:
            return .resumeNow(other)
        }
    }
}
