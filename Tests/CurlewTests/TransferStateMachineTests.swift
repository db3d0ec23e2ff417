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
            request: OutgoingRequest(url: url), url: url, head: HTTPResponse(status: .ok), body: Data("x".utf8),
            fileURL: nil, metrics: .zero, redirects: [])
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

    @Test func finishIsIdempotent() {
        var machine = TransferStateMachine()
        _ = machine.start()
        let first = machine.finish(.success(outcome()))
        #expect(first.result != nil)
        let second = machine.finish(.failure(error))
        #expect(second.result == nil)
    }

    @Test func headIsDeliveredOnce() {
        var machine = TransferStateMachine()
        _ = machine.start()
        #expect(machine.headReceived(HTTPResponse(status: .ok)).isEmpty)
        #expect(machine.head?.status == .ok)
        #expect(machine.headReceived(HTTPResponse(status: .notFound)).isEmpty)
        #expect(machine.head?.status == .ok)
    }

    @Test func streamBufferPausesAtTheHighWatermarkAndUnpausesAtTheLow() {
        var machine = TransferStateMachine(streamBufferSize: 100)
        _ = machine.start()
        let chunk = Data(repeating: 1, count: 40)
        for _ in 0..<3 {
            guard case .buffered = machine.chunkReceived(chunk) else {
                Issue.record("expected buffering")
                return
            }
        }
        #expect(machine.bufferedBytes == 120)
        guard case .pause = machine.chunkReceived(chunk) else {
            Issue.record("expected a pause above the high watermark")
            return
        }
        #expect(machine.isPaused)
        // 120 → 80 → 40: still above the low watermark (25), no unpause yet.
        guard case .chunk(_, let first) = machine.nextChunk(), case .chunk(_, let second) = machine.nextChunk() else {
            Issue.record("expected chunks")
            return
        }
        #expect(first == false)
        #expect(second == false)
        // 40 → 0: at or below the low watermark, unpause.
        guard case .chunk(_, let third) = machine.nextChunk() else {
            Issue.record("expected a chunk")
            return
        }
        #expect(third == true)
        #expect(!machine.isPaused)
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
}
