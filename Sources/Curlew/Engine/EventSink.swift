import Synchronization

/// Fans the events of one request out to every `events` stream that was made from it.
final class EventSink: Sendable {
    typealias Continuation = AsyncThrowingStream<TransferEvent, any Error>.Continuation

    private struct State {
        var continuations: [Int: Continuation] = [:]
        var nextID = 0
        var finished = false
    }

    private let state = Mutex(State())

    /// Whether any stream is listening now.
    var hasListeners: Bool { state.withLock { !$0.continuations.isEmpty } }

    /// Adds a stream; returns its key, or nil when the request already finished.
    func add(_ continuation: Continuation) -> Int? {
        state.withLock { state in
            guard !state.finished else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.continuations[id] = continuation
            return id
        }
    }

    func remove(_ id: Int) {
        _ = state.withLock { $0.continuations.removeValue(forKey: id) }
    }

    /// Sends an event to every stream listening now; the event is not even made when none is.
    func emit(_ event: @autoclosure () -> TransferEvent) {
        let targets = state.withLock { $0.continuations.isEmpty ? [] : Array($0.continuations.values) }
        guard !targets.isEmpty else { return }
        let event = event()
        for target in targets { target.yield(event) }
    }

    /// Ends every stream, with an error or normally; later streams end at once.
    func finish(throwing error: (any Error)?) {
        let targets = state.withLock { state -> [Continuation] in
            state.finished = true
            // Most requests have no stream: nothing to copy or to empty then.
            guard !state.continuations.isEmpty else { return [] }
            defer { state.continuations.removeAll() }
            return Array(state.continuations.values)
        }
        for target in targets { target.finish(throwing: error) }
    }
}
