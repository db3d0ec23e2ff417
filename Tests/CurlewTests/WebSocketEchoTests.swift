import Curlew
import Foundation
import Testing
import TestServer

/// The everyday path against a server no one here wrote: Python's `websockets` library, over
/// ws and wss (with certificates made for the run).
@Suite("WebSocket echo against Python websockets")
struct WebSocketEchoTests {
    @Test func textAndBinaryEchoOverWS() async throws {
        let server = try await PythonWebSocketServer.start()
        let session = Session()
        let socket = try await session.webSocket(server.url("/echo"))
        #expect(socket.response.status.code == 101)
        try await socket.send(.text("hello, 世界"))
        try await socket.send(.binary(Data([0, 1, 2, 255])))
        let big = String(repeating: "abcdefgh", count: 100_000)
        try await socket.send(.text(big))
        var iterator = socket.messages.makeAsyncIterator()
        #expect(try await iterator.next() == .text("hello, 世界"))
        #expect(try await iterator.next() == .binary(Data([0, 1, 2, 255])))
        #expect(try await iterator.next() == .text(big))
        await socket.close()
        #expect(socket.closeCode == .normalClosure)
        #expect(try await iterator.next() == nil)
        await session.shutdown()
        await server.stop()
    }

    @Test func echoOverWSSWithTheTestAuthority() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-ws-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificates = try await TestCertificates.generate(in: directory)
        let server = try await PythonWebSocketServer.start(certificates: certificates)
        var configuration = SessionConfiguration()
        configuration.trust = TrustConfiguration(default: .certificateAuthorities([.file(certificates.caCertificatePath)]))
        let session = Session(configuration: configuration)
        let socket = try await session.webSocket(server.url("/echo", secure: true).replacingOccurrences(of: "127.0.0.1", with: "localhost"))
        try await socket.send(.text("over TLS"))
        var iterator = socket.messages.makeAsyncIterator()
        #expect(try await iterator.next() == .text("over TLS"))
        await socket.close()
        // Without the test authority the server is not trusted.
        let plain = Session()
        await #expect { _ = try await plain.webSocket(server.url("/echo", secure: true).replacingOccurrences(of: "127.0.0.1", with: "localhost")) } throws: {
            ($0 as? CurlewError)?.kind == .tlsFailure
        }
        await plain.shutdown()
        await session.shutdown()
        await server.stop()
    }

    @Test func subprotocolIsNegotiated() async throws {
        let server = try await PythonWebSocketServer.start()
        let session = Session()
        let socket = try await session.webSocket(server.url("/protocol"), protocols: ["chat.v1", "chat.v9"])
        #expect(socket.subprotocol == "chat.v1")
        var iterator = socket.messages.makeAsyncIterator()
        #expect(try await iterator.next() == .text("chat.v1"))
        await socket.close()
        await session.shutdown()
        await server.stop()
    }

    @Test func serverCloseCodeEndsTheMessages() async throws {
        let server = try await PythonWebSocketServer.start()
        let session = Session()
        let normal = try await session.webSocket(server.url("/close/1000"))
        var iterator = normal.messages.makeAsyncIterator()
        #expect(try await iterator.next() == nil)
        #expect(normal.closeCode == .normalClosure)
        #expect(normal.closeReason == "closing as asked")
        let abnormal = try await session.webSocket(server.url("/close/4001"))
        var second = abnormal.messages.makeAsyncIterator()
        await #expect { _ = try await second.next() } throws: {
            let error = $0 as? CurlewError
            return error?.kind == .webSocketClosed && error?.message.contains("4001") == true
        }
        #expect(abnormal.closeCode == WebSocketCloseCode(rawValue: 4001))
        await session.shutdown()
        await server.stop()
    }

    /// libcurl 7.88 keeps a connect-only connection in its multi handle's cache as an idle one,
    /// and a new connection there prunes idle ones that are readable ("dead"). The WebSocket's
    /// own multi handle keeps the session's requests away from it.
    @Test func theSessionsRequestsNeverCloseAWebSocket() async throws {
        let server = try await PythonWebSocketServer.start()
        let http = try await TestServer.start()
        let session = Session()
        var options = WebSocketOptions()
        // One message fills the buffer: reading stops and the next echo waits in the socket.
        options.incomingBufferSize = 1
        let socket = try await session.webSocket(server.url("/echo"), options: options)
        try await socket.send(text: "first")
        try await socket.send(text: "second")
        var iterator = socket.messages.makeAsyncIterator()
        #expect(try await iterator.next() == .text("first"))
        try await socket.send(text: "third")
        // libcurl prunes at most once a second, when a transfer makes a new connection.
        for index in 0..<3 {
            try await Task.sleep(for: .milliseconds(1100))
            // `Connection: close`: each request makes a new connection, and so prunes.
            _ = try await session.request(http.url("/get?n=\(index)"), headers: ["Connection": "close"]).data()
        }
        #expect(try await iterator.next() == .text("second"))
        #expect(try await iterator.next() == .text("third"))
        await socket.close()
        await session.shutdown()
        try await http.shutdown()
        await server.stop()
    }

    @Test func keepAlivePingsKeepAnIdleConnectionOpen() async throws {
        let server = try await PythonWebSocketServer.start()
        let session = Session()
        var options = WebSocketOptions()
        options.pingInterval = .milliseconds(200)
        options.idleTimeout = .seconds(1)
        let socket = try await session.webSocket(server.url("/echo"), options: options)
        // The server sends nothing but pongs: they keep the idle timeout away.
        var pongs = 0
        for await event in socket.events {
            if case .pongReceived = event { pongs += 1 }
            if pongs == 8 { break }
        }
        try await socket.send(text: "still here")
        var iterator = socket.messages.makeAsyncIterator()
        #expect(try await iterator.next() == .text("still here"))
        await socket.close()
        await session.shutdown()
        await server.stop()
    }

    @Test func echoOverAUnixSocket() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-ws-\(UUID().uuidString.prefix(8)).sock").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try await PythonWebSocketServer.start(unixSocketPath: path)
        let session = Session()
        let encoded = path.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? path
        let socket = try await session.webSocket("ws+unix://\(encoded)/echo")
        try await socket.send(text: "over a socket")
        var iterator = socket.messages.makeAsyncIterator()
        #expect(try await iterator.next() == .text("over a socket"))
        await socket.close()
        await session.shutdown()
        await server.stop()
    }
}
