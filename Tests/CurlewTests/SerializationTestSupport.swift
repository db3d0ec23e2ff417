import Foundation
import HTTPTypes
import Testing

@testable import Curlew

/// Helpers shared by the encoder, serializer and framer tests. No network.
enum SerializationTestSupport {
    static let url = URL(string: "https://api.example.com/v1/items")!

    /// A response as a serializer sees it.
    static func response(
        _ body: Data, status: HTTPResponse.Status = .ok, method: HTTPRequest.Method = .get,
        contentType: String? = "application/json"
    ) -> Response<Data> {
        var fields = HTTPFields()
        if let contentType { fields[.contentType] = contentType }
        return Response(
            request: OutgoingRequest(url: url, method: method), url: url,
            head: HTTPResponse(status: status, headerFields: fields), value: body, metrics: .zero)
    }

    static func response(
        _ text: String, status: HTTPResponse.Status = .ok, method: HTTPRequest.Method = .get,
        contentType: String? = "application/json"
    ) -> Response<Data> {
        response(Data(text.utf8), status: status, method: method, contentType: contentType)
    }

    /// The bytes of a request body, streams included.
    static func collect(_ body: RequestBody?) async throws -> Data {
        guard let body else { return Data() }
        switch body.storage {
        case .data(let data): return data
        case .file(let url): return try Data(contentsOf: url)
        case .stream(_, _, let make):
            let source = try make()
            var data = Data()
            while let chunk = try await source.next() { data.append(contentsOf: chunk) }
            return data
        }
    }

    /// The text of a request body in memory.
    static func text(_ body: RequestBody?) -> String? {
        guard let body, case .data(let data) = body.storage else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// Collects an async sequence into an array.
    static func collect<S: AsyncSequence>(_ sequence: S) async throws -> [S.Element] {
        var elements: [S.Element] = []
        for try await element in sequence { elements.append(element) }
        return elements
    }
}

/// A sequence of predetermined chunks.
struct TestChunks: AsyncSequence, Sendable {
    let chunks: [Data]

    init(_ chunks: [Data]) { self.chunks = chunks }

    /// `text` cut into chunks of `size` bytes (the last one shorter).
    init(_ text: String, chunkSize size: Int) {
        let bytes = Array(text.utf8)
        self.chunks = stride(from: 0, to: bytes.count, by: Swift.max(1, size)).map {
            Data(bytes[$0..<Swift.min(bytes.count, $0 + size)])
        }
    }

    /// `bytes` cut at the given offsets.
    init(_ bytes: [UInt8], cuts: [Int]) {
        var chunks: [Data] = []
        var start = 0
        for cut in cuts.sorted() where cut > start && cut < bytes.count {
            chunks.append(Data(bytes[start..<cut]))
            start = cut
        }
        chunks.append(Data(bytes[start...]))
        self.chunks = chunks
    }

    func makeAsyncIterator() -> Iterator { Iterator(chunks: chunks) }

    struct Iterator: AsyncIteratorProtocol {
        let chunks: [Data]
        var index = 0
        mutating func next() async throws -> Data? {
            guard index < chunks.count else { return nil }
            defer { index += 1 }
            return chunks[index]
        }
    }
}

/// The error a ``FailingTestChunks`` throws.
struct TestStreamFailure: Error {}

/// A stream that fails after its chunks.
struct FailingTestChunks: AsyncSequence, Sendable {
    let chunks: [Data]

    func makeAsyncIterator() -> Iterator { Iterator(chunks: chunks) }

    struct Iterator: AsyncIteratorProtocol {
        let chunks: [Data]
        var index = 0
        mutating func next() async throws -> Data? {
            guard index < chunks.count else { throw TestStreamFailure() }
            defer { index += 1 }
            return chunks[index]
        }
    }
}
