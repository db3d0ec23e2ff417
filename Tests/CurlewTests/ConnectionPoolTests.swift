@testable import Curlew
import Foundation
import Testing
import TestServer

/// ``Session/connectionPool()`` and ``Session/closeIdleConnections()`` against a test server of
/// their own, which counts the connections it accepts and sees close.
@Suite("Connection pool")
struct ConnectionPoolTests {
    private func session() -> Session {
        var configuration = SessionConfiguration()
        configuration.proxy = .direct
        return Session(configuration: configuration)
    }

    @Test func keepAliveRequestsLeaveOneIdleConnection() async throws {
        let server = try await TestServer.start()
        let session = session()
        for _ in 0..<3 { _ = try await session.request(server.url("/get")).validate().data() }
        let pool = await session.connectionPool()
        #expect(server.connectionCount == 1)
        try #require(pool.connections.count == 1, "\(pool)")
        let connection = pool.connections[0]
        #expect(connection.state == .idle)
        #expect(connection.activeTransfers == 0)
        #expect(connection.host == "127.0.0.1")
        #expect(connection.port == server.port)
        #expect(connection.usesTLS == false)
        #expect(connection.httpVersion == .http1_1)
        #expect(connection.remoteAddress == "127.0.0.1")
        #expect(connection.remotePort == server.port)
        #expect(connection.localPort == server.connectionPeers.first?.port)
        await session.shutdown()
        #expect(await session.connectionPool().connections.isEmpty)
        try await server.shutdown()
    }

    @Test func closingIdleConnectionsClosesThemOnTheWire() async throws {
        let server = try await TestServer.start()
        let session = session()
        _ = try await session.request(server.url("/get")).validate().data()
        let closed = await session.closeIdleConnections()
        #expect(closed.connections.count == 1)
        #expect(closed.connections.first?.localPort == server.connectionPeers.first?.port)
        #expect(await session.connectionPool().connections.isEmpty)
        // The next request opens a new connection instead of reusing the closed one.
        let next = try await session.request(server.url("/get")).validate().response
        #expect(!next.metrics.connectionReused)
        #expect(server.connectionCount == 2)
        // The server saw the first connection close (the second stays open, idle).
        try await waitUntil { server.openConnectionCount == 1 }
        #expect(await session.connectionPool().idle.count == 1)
        await session.shutdown()
        try await server.shutdown()
    }

    @Test func aBusyStreamingTransferIsShownBusyAndSurvivesClosingIdleConnections() async throws {
        let server = try await TestServer.start()
        let session = session()
        let total = 32 << 20
        // A connection that has finished a transfer, so it is idle until the stream reuses it.
        _ = try await session.request(server.url("/get")).validate().data()
        // Read one chunk, then leave it waiting on its consumer: in flight, paused.
        var iterator = session.request(server.url("/bytes/\(total)")).validate().bytes.makeAsyncIterator()
        var received = try await iterator.next()?.count ?? 0
        // Its connection is busy, so this request opens a second one, idle afterwards.
        _ = try await session.request(server.url("/get")).validate().data()
        #expect(server.connectionCount == 2)
        let pool = await session.connectionPool()
        #expect(pool.connections.count == 2, "\(pool)")
        #expect(pool.busy.count == 1)
        #expect(pool.busy.first?.activeTransfers == 1)
        #expect(pool.busy.first?.host == "127.0.0.1")
        #expect(pool.idle.count == 1)
        let closed = await session.closeIdleConnections()
        #expect(closed.connections.map(\.localPort) == pool.idle.map(\.localPort))
        // The streaming transfer goes on to the end over its own connection.
        while let chunk = try await iterator.next() { received += chunk.count }
        #expect(received == total)
        try await waitUntil { server.openConnectionCount == 1 }
        await session.shutdown()
        try await server.shutdown()
    }
}

/// The pool of an HTTP/2 session against nginx.
@Suite(
    "Connection pool over HTTP/2", .enabled(if: NginxServer.isAvailable, "nginx is not installed"),
    .nginx(fixedResponses: ["/kib": String(repeating: "x", count: 1024)]))
struct ConnectionPoolHTTP2Tests {
    @Test func anHTTP2ConnectionIsListedAndClosedWhenIdle() async throws {
        let nginx = try NginxSuiteScope.server()
        var configuration = SessionConfiguration()
        configuration.proxy = .direct
        configuration.trust = TrustConfiguration(default: .certificateAuthorities([.file(nginx.caCertificatePath)]))
        let session = Session(configuration: configuration)
        let first = try await session.request(nginx.url("/kib")).validate().response
        #expect(first.metrics.httpVersion == .http2)
        let pool = await session.connectionPool()
        try #require(pool.connections.count == 1, "\(pool)")
        #expect(pool.connections[0].state == .idle)
        #expect(pool.connections[0].httpVersion == .http2)
        #expect(pool.connections[0].usesTLS == true)
        #expect(pool.connections[0].port == nginx.url("/").port)
        #expect(await session.closeIdleConnections().connections.count == 1)
        let next = try await session.request(nginx.url("/kib")).validate().response
        #expect(next.metrics.httpVersion == .http2)
        #expect(!next.metrics.connectionReused)
        await session.shutdown()
    }
}
