import Curlew
import Foundation
import TestServer

/// One in-process test server for the whole test run.
enum Fixtures {
    private static let serverTask = Task { try await TestServer.start() }

    static func server() async throws -> TestServer { try await serverTask.value }

    /// A session shared by tests that do not need their own configuration.
    static let session = Session()

    /// Parses an echo response of the test server.
    static func echo(_ data: Data) throws -> Echo {
        try JSONDecoder().decode(Echo.self, from: data)
    }

    /// Resident memory in bytes; throws if it cannot be read (see `ResidentMemory`).
    static func residentBytes() throws -> Int { try ResidentMemory.bytes() }
}

/// The error `request` fails with, or nil when it succeeds.
func failure(_ request: DataRequest) async -> CurlewError? {
    do {
        _ = try await request.data()
        return nil
    } catch {
        return error
    }
}

/// The test server's echo body.
struct Echo: Decodable, Sendable {
    let method: String
    let url: String
    let path: String
    let args: [String: ArgValue]
    let headers: [String: String]
    let body: String
    let bodyLength: Int
    /// The request target as sent.
    let rawTarget: String
    /// Every header line as `[name, value]`, in order, repeated lines apart.
    let headerLines: [[String]]
    /// The query's decoded pairs as `[name, value]`, in order, duplicates kept.
    let queryPairs: [[String]]
    /// A form body's decoded pairs (URL-encoded or multipart fields) as `[name, value]`, in
    /// order, duplicates kept; nil for other bodies.
    let formPairs: [[String]]?

    /// The values of every header line named `name` (any case), in order.
    func headerLines(named name: String) -> [String] {
        headerLines.filter { $0.first?.lowercased() == name.lowercased() }.compactMap { $0.last }
    }

    enum ArgValue: Decodable, Sendable, Equatable {
        case one(String)
        case many([String])
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) { self = .one(text) } else { self = .many(try container.decode([String].self)) }
        }
    }
}

/// A body whose bytes arrive slowly, for upload tests.
struct ChunkSequence: AsyncSequence, Sendable {
    typealias Element = [UInt8]
    let chunks: [[UInt8]]
    func makeAsyncIterator() -> AsyncStream<[UInt8]>.Iterator {
        AsyncStream { continuation in
            for chunk in chunks { continuation.yield(chunk) }
            continuation.finish()
        }.makeAsyncIterator()
    }
}
