import BenchSupport
import Curlew
import Foundation

/// Curlew, through its public API only: `request(url).data()`, `.bytes`,
/// `download(url, to: .file(...))` and a PUT with `body: .file(...)`.
///
/// The session keeps its defaults except what the scenario needs: the run's CA for https,
/// and at most as many connections as requests in flight (per host and in total), all of
/// them kept when idle.
///
/// With `--executor session` (the client `curlew-exec`), the driver's tasks run on
/// ``Session/taskExecutor``, the session's own thread, as a user who opts in would.
struct CurlewClient: BenchClient {
    let name: String
    private let session: Session
    private let usesSessionExecutor: Bool

    init(_ arguments: BenchArguments) {
        var configuration = SessionConfiguration()
        if let path = arguments.caCertificatePath {
            configuration.trust = TrustConfiguration(default: .certificateAuthorities([.file(path)]))
        }
        // Connections limited to exactly the requests in flight, as every peer is; the idle
        // cache holds them all, so none is closed between two requests.
        configuration.maximumConnectionsPerHost = arguments.inFlight
        configuration.maximumTotalConnections = arguments.inFlight
        configuration.maximumIdleConnections = max(configuration.maximumIdleConnections, arguments.inFlight)
        configuration.timeouts = Timeouts(connect: .seconds(60), total: nil, idle: .seconds(600))
        session = Session(configuration: configuration)
        usesSessionExecutor = arguments.executor == "session"
        name = usesSessionExecutor ? "curlew-exec" : "curlew"
    }

    var taskExecutor: (any TaskExecutor)? { usesSessionExecutor ? session.taskExecutor : nil }

    func get(_ url: String) async throws -> Int {
        try await session.request(url).validate().data().count
    }

    func stream(_ url: String) async throws -> Int64 {
        var total: Int64 = 0
        for try await chunk in session.request(url).validate().bytes { total += Int64(chunk.count) }
        return total
    }

    func download(_ url: String, to path: String) async throws -> Int64 {
        let destination = URL(fileURLWithPath: path)
        let file = try await session.download(url, to: .file(destination, options: [.removePreviousFile]))
            .validate().fileURL()
        return try Self.size(of: file.path)
    }

    func upload(_ url: String, from path: String) async throws -> Int64 {
        let source = URL(fileURLWithPath: path)
        _ = try await session.request(url, method: .put, body: .file(source)).validate().data()
        return try Self.size(of: path)
    }

    func shutdown() async throws { await session.shutdown() }

    private static func size(of path: String) throws -> Int64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        guard let size = (attributes[.size] as? NSNumber)?.int64Value else {
            throw BenchFailure("cannot read the size of \(path)")
        }
        return size
    }
}
