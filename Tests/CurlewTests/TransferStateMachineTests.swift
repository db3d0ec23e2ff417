import Foundation
import HTTPTypes
import Testing

@testable import Curlew

/// The transfer state machine, without a network.
@Suite("Transfer state machine")
struct TransferStateMachineTests {
    private let error = CurlewError(.cancelled, "test")

    private func outcome() -> TransferOutcome {
        let url = URL(string: "http://127.0.0.1/")!
        return TransferOutcome(
            request: OutgoingRequest(url: url), head: HTTPResponse(status: .ok), body: Data("x".utf8),
            metrics: .zero, redirects: [])
    }

    @Test func startsOnce() {
        var machine = TransferStateMachine()
        #expect(machine.start() == .submit)
        #expect(machine.start() == .none)
        #expect(machine.phase == .running)
    }

    @Test func cancelBeforeStartFinishesAtOnceAndStartIsThenANoOp() {
        var machine = TransferStateMachine()
        guard case .resume(let resumptions) = machine.cancel(error) else {
            Issue.record("expected an immediate finish")
            return
        }
        #expect(resumptions.isEmpty)
        #expect(machine.phase == .finished)
        #expect(machine.start() == .none)
    }

    @Test func cancelWhileRunningAsksTheLoopOnceAndWinsOverAFailure() {
        var machine = TransferStateMachine()
        _ = machine.start()
        guard case .stopOnLoop = machine.cancel(error) else {
            Issue.record("expected stopOnLoop")
            return
        }
        guard case .none = machine.cancel(error) else {
            Issue.record("a second cancel must do nothing")
            return
        }
        let resumptions = machine.finish(.failure(CurlewError(.transport, "aborted")))
        if case .failure(let final) = resumptions.result {
            #expect(final.kind == .cancelled)
        } else {
            Issue.record("expected the cancel reason")
        }
    }

    @Test func finishIsIdempotent() async throws {
        var machine = TransferStateMachine(streamBufferSize: 1000)
        _ = machine.start()
        let first = machine.finish(.success(outcome()))
        guard case .success = first.result else {
            Issue.record("the first finish must report its result")
            return
        }
        let second = machine.finish(.failure(error))
        #expect(second.result == nil)
        #expect(second.isEmpty)
        // The first result stands: a stream still ends normally, and a late waiter gets the success.
        guard case .end = machine.nextChunk() else {
            Issue.record("after a second finish, the stream must still end as the first finish said")
            return
        }
        let late = try await withUnsafeThrowingContinuation { (continuation: TransferStateMachine.OutcomeContinuation) in
            if let known = machine.waitForOutcome(continuation) {
                continuation.resume(with: known.mapError { $0 as any Error })
            } else {
                continuation.resume(throwing: CurlewError(.transport, "no result recorded after finish"))
            }
        }
        #expect(late.body == Data("x".utf8))
    }

    @Test func headIsDeliveredOnce() {
        var machine = TransferStateMachine()
        _ = machine.start()
        #expect(machine.headReceived(ResponseHead(HTTPResponse(status: .ok))).isEmpty)
        #expect(machine.head?.statusCode == 200)
        #expect(machine.headReceived(ResponseHead(HTTPResponse(status: .notFound))).isEmpty)
        #expect(machine.head?.statusCode == 200)
    }

    @Test func streamBufferPausesAtTheHighWatermarkAndUnpausesAtTheLow() {
        // A 100-byte buffer: pause once 100 bytes are held, unpause at a quarter of it (25 bytes)
        // while those bytes are still buffered, not only once the buffer is empty.
        var machine = TransferStateMachine(streamBufferSize: 100)
        _ = machine.start()
        let chunk = Data(repeating: 1, count: 25)
        for _ in 0..<4 {
            guard case .buffered = machine.chunkReceived(chunk) else {
                Issue.record("expected buffering below the high watermark")
                return
            }
        }
        #expect(machine.bufferedBytes == 100)
        guard case .pause = machine.chunkReceived(chunk) else {
            Issue.record("expected a pause at the high watermark")
            return
        }
        #expect(machine.isPaused)
        #expect(machine.bufferedBytes == 100, "a paused chunk stays with curl")
        // 100 → 75 → 50: above the low watermark, still paused.
        var unpauses: [Bool] = []
        for _ in 0..<2 {
            guard case .chunk(_, let unpause) = machine.nextChunk() else {
                Issue.record("expected a chunk")
                return
            }
            unpauses.append(unpause)
        }
        #expect(unpauses == [false, false])
        #expect(machine.isPaused)
        // 50 → 25: exactly the low watermark, with 25 bytes still buffered: unpause now.
        guard case .chunk(_, let atLow) = machine.nextChunk() else {
            Issue.record("expected a chunk")
            return
        }
        #expect(atLow == true, "unpause at the low watermark, not when the buffer is empty")
        #expect(machine.bufferedBytes == 25)
        #expect(!machine.isPaused)
        // 25 → 0: already unpaused, no second unpause.
        guard case .chunk(_, let last) = machine.nextChunk() else {
            Issue.record("expected the last chunk")
            return
        }
        #expect(last == false)
        guard case .wait = machine.nextChunk() else {
            Issue.record("expected to wait on an empty buffer")
            return
        }
    }

    @Test func bufferedChunksDrainBeforeTheEnd() {
        var machine = TransferStateMachine(streamBufferSize: 1000)
        _ = machine.start()
        _ = machine.chunkReceived(Data("a".utf8))
        _ = machine.finish(.success(outcome()))
        guard case .chunk(let data, _) = machine.nextChunk() else {
            Issue.record("expected the buffered chunk")
            return
        }
        #expect(data == Data("a".utf8))
        guard case .end = machine.nextChunk() else {
            Issue.record("expected the end")
            return
        }
    }

    @Test func cancelDropsBufferedChunksAndAbortsFurtherOnes() {
        var machine = TransferStateMachine(streamBufferSize: 1000)
        _ = machine.start()
        _ = machine.chunkReceived(Data("a".utf8))
        _ = machine.cancel(error)
        #expect(machine.bufferedBytes == 0)
        guard case .abort = machine.chunkReceived(Data("b".utf8)) else {
            Issue.record("expected abort")
            return
        }
    }

    // MARK: Suspending and resuming

    @Test func aSuspensionBeforeTheStartDefersItUntilResumed() {
        var machine = TransferStateMachine()
        #expect(machine.suspend() == .deferStart)
        #expect(machine.start() == .none, "a consumer's start waits")
        #expect(machine.phase == .idle)
        #expect(machine.resume() == .submit, "the deferred start happens on resumption")
        #expect(machine.phase == .running)
        #expect(machine.start() == .none)
    }

    @Test func resumingWhatNobodyStartedStartsNothing() {
        var machine = TransferStateMachine()
        _ = machine.suspend()
        #expect(machine.resume() == .none)
        #expect(machine.phase == .idle)
        #expect(machine.start() == .submit, "not suspended any more: the start goes ahead")
    }

    @Test func aRunningTransferIsPausedAndResumedOnTheLoopOnce() {
        var machine = TransferStateMachine()
        _ = machine.start()
        #expect(machine.resume() == .none, "not suspended")
        #expect(machine.suspend() == .pauseOnLoop)
        #expect(machine.suspend() == .none, "suspending twice is suspending once")
        #expect(machine.resume() == .resumeOnLoop)
        #expect(machine.resume() == .none)
    }

    @Test func aFinishedTransferIgnoresSuspendAndResume() {
        var machine = TransferStateMachine()
        _ = machine.start()
        _ = machine.suspend()
        _ = machine.finish(.success(outcome()))
        #expect(machine.resume() == .none)
        #expect(machine.suspend() == .none)
        var cancelled = TransferStateMachine()
        _ = cancelled.suspend()
        _ = cancelled.cancel(error)
        #expect(cancelled.phase == .finished, "a cancel is not held up by a suspension")
        #expect(cancelled.resume() == .none)
    }
}
