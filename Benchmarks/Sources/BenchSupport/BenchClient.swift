/// What the driver needs from an HTTP client library; one conformance per library.
///
/// Each method moves one whole response and returns the number of body bytes it saw. A
/// client that has no way to do something throws ``BenchUnsupported``.
public protocol BenchClient: Sendable {
    /// The short name printed in results.
    var name: String { get }
    /// GET, collecting the whole body in memory (the small-request scenarios).
    func get(_ url: String) async throws -> Int
    /// GET through the library's streaming body API, discarding each chunk.
    func stream(_ url: String) async throws -> Int64
    /// GET into a file at `path`.
    func download(_ url: String, to path: String) async throws -> Int64
    /// PUT the file at `path` as the body; returns the bytes sent.
    func upload(_ url: String, from path: String) async throws -> Int64
    /// Releases connections and threads.
    func shutdown() async throws
    /// The executor the driver's tasks should prefer, when the library offers one that saves
    /// thread hops; nil runs them on the global executor.
    var taskExecutor: (any TaskExecutor)? { get }
}

extension BenchClient {
    /// No preference: the global executor.
    public var taskExecutor: (any TaskExecutor)? { nil }
}

/// Thrown by a client for a scenario its library cannot run.
public struct BenchUnsupported: Error, CustomStringConvertible {
    /// Why the scenario cannot run.
    public let description: String
    /// Creates the error with its reason.
    public init(_ reason: String) { description = reason }
}

/// A response whose status or size was not what the scenario expects.
public struct BenchFailure: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String
    /// Creates the error with its description.
    public init(_ description: String) { self.description = description }
}
