import Curlew
import Foundation
import HTTPTypes
import Synchronization
import TestServer

/// A thread-safe counter and log for assertions from interceptors and handlers.
final class Recorder<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])

    func append(_ value: Value) { values.withLock { $0.append(value) } }
    var all: [Value] { values.withLock { $0 } }
    var count: Int { values.withLock { $0.count } }
}

/// Counts calls per key, for "fail N times, then succeed" handlers.
final class CallCounter: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    /// Increments the count of `key` and returns the new value.
    func next(_ key: String = "") -> Int {
        counts.withLock { counts in
            counts[key, default: 0] += 1
            return counts[key, default: 0]
        }
    }

    func count(_ key: String = "") -> Int { counts.withLock { $0[key] ?? 0 } }
}

/// An adapter that appends its name to `X-Order` and records each call.
struct NamedAdapter: RequestInterceptor {
    let name: String
    let calls: Recorder<String>
    var fails = false

    func adapt(_ request: OutgoingRequest, for session: Session) async throws -> OutgoingRequest {
        calls.append(name)
        if fails { throw AdapterFailure(name: name) }
        var adapted = request
        let previous = adapted.headerFields[HTTPField.Name("X-Order")!]
        adapted.headerFields[HTTPField.Name("X-Order")!] = previous.map { "\($0),\(name)" } ?? name
        return adapted
    }
}

struct AdapterFailure: Error, CustomStringConvertible {
    let name: String
    var description: String { "adapter \(name) refused" }
}

/// A retrier that records what it was asked and answers with `decide`.
struct ScriptedRetrier: RequestInterceptor {
    let name: String
    let calls: Recorder<(String, CurlewError.Kind, Int)>
    let decide: @Sendable (CurlewError, Int) -> RetryResult

    func retry(_ request: OutgoingRequest, for session: Session, dueTo error: CurlewError, context: RetryContext) async
        -> RetryResult
    {
        calls.append((name, error.kind, context.attempt))
        return decide(error, context.attempt)
    }
}

/// A port that refuses connections for the rest of the run (see ``RefusingPort``).
func closedLoopbackPort() throws -> Int {
    try RefusingPort.make()
}
