import AsyncHTTPClient
import BenchSupport
import Foundation
import NIOCore
import NIOSSL

/// AsyncHTTPClient 1.37 through its async API (`execute(_:timeout:)`), one `HTTPClient`
/// per run on NIO's singleton event loop group.
struct AHCClient: BenchClient {
    let name = "ahc"
    private let client: HTTPClient
    private let timeout = TimeAmount.seconds(600)

    /// Makes the client: as many HTTP/1 connections per host as requests in flight, and the
    /// run's CA as the only trust root when one is given.
    init(_ arguments: BenchArguments) throws {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(
            idleTimeout: .seconds(60),
            concurrentHTTP1ConnectionsPerHostSoftLimit: arguments.inFlight)
        if let caPath = arguments.caCertificatePath {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .file(caPath)
            configuration.tlsConfiguration = tls
        }
        configuration.timeout = .init(connect: .seconds(60), read: .seconds(600))
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    func get(_ url: String) async throws -> Int {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: timeout)
        let body = try await response.body.collect(upTo: 16 << 20)
        try check(response, url)
        return body.readableBytes
    }

    func stream(_ url: String) async throws -> Int64 {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: timeout)
        try check(response, url)
        var total: Int64 = 0
        for try await buffer in response.body { total += Int64(buffer.readableBytes) }
        return total
    }

    func download(_ url: String, to path: String) async throws -> Int64 {
        let file = try OutputFile(path: path)
        defer { file.close() }
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: timeout)
        try check(response, url)
        var total: Int64 = 0
        for try await buffer in response.body {
            try buffer.withUnsafeReadableBytes { try file.write($0) }
            total += Int64(buffer.readableBytes)
        }
        return total
    }

    func upload(_ url: String, from path: String) async throws -> Int64 {
        let chunks = try FileChunks(path: path, chunkSize: 1 << 20)
        var request = HTTPClientRequest(url: url)
        request.method = .PUT
        request.body = .stream(chunks, length: .known(chunks.length))
        let response = try await client.execute(request, timeout: timeout)
        _ = try await response.body.collect(upTo: 1 << 20)
        try check(response, url)
        return chunks.length
    }

    func shutdown() async throws { try await client.shutdown() }

    private func check(_ response: HTTPClientResponse, _ url: String) throws {
        guard (200..<300).contains(response.status.code) else {
            throw BenchFailure("\(url): HTTP \(response.status.code)")
        }
    }
}
