import BenchSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// URLSession from FoundationNetworking (swift-corelibs-foundation, itself on libcurl).
///
/// Small requests and files use the async API (`data(from:)`, `download(from:)`,
/// `upload(for:fromFile:)`); the streaming scenarios use a data task whose delegate counts
/// and drops each chunk, since `bytes(from:)` does not exist on Linux.
struct URLSessionClient: BenchClient {
    let name = "urlsession"
    private let session: URLSession
    private let streams: StreamingDelegate

    init(_ arguments: BenchArguments) throws {
        if arguments.caCertificatePath != nil {
            throw BenchUnsupported(
                "FoundationNetworking on Linux cannot trust a custom CA: no server-trust "
                    + "challenge, and its CA-file variable is read only on Android")
        }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = arguments.inFlight
        configuration.timeoutIntervalForRequest = 600
        configuration.timeoutIntervalForResource = 600
        configuration.urlCache = nil
        streams = StreamingDelegate()
        switch arguments.scenario {
        case .downloadStream, .manyStreams:
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 1
            session = URLSession(configuration: configuration, delegate: streams, delegateQueue: queue)
        default:
            // No delegate where the async API is used, so nothing is routed through one.
            session = URLSession(configuration: configuration)
        }
    }

    func get(_ url: String) async throws -> Int {
        let (data, response) = try await session.data(from: try makeURL(url))
        try check(response, url)
        return data.count
    }

    func stream(_ url: String) async throws -> Int64 {
        let task = session.dataTask(with: try makeURL(url))
        return try await streams.run(task)
    }

    func download(_ url: String, to path: String) async throws -> Int64 {
        let (temporary, response) = try await session.download(from: try makeURL(url))
        try check(response, url)
        let destination = URL(fileURLWithPath: path)
        try? FileManager.default.removeItem(at: destination)
        try FileManager.default.moveItem(at: temporary, to: destination)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.size] as? NSNumber)?.int64Value ?? 0
    }

    func upload(_ url: String, from path: String) async throws -> Int64 {
        var request = URLRequest(url: try makeURL(url))
        request.httpMethod = "PUT"
        let file = URL(fileURLWithPath: path)
        let (_, response) = try await session.upload(for: request, fromFile: file)
        try check(response, url)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.size] as? NSNumber)?.int64Value ?? 0
    }

    func shutdown() async throws { session.finishTasksAndInvalidate() }

    private func makeURL(_ text: String) throws -> URL {
        guard let url = URL(string: text) else { throw BenchFailure("bad URL \(text)") }
        return url
    }

    private func check(_ response: URLResponse, _ url: String) throws {
        guard let http = response as? HTTPURLResponse, (200..<300).contains(http.statusCode) else {
            throw BenchFailure("\(url): \((response as? HTTPURLResponse)?.statusCode ?? 0)")
        }
    }
}
