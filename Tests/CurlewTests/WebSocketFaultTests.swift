import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

/// Servers that break RFC 6455 (Scripts/websocket_fault_server.py, raw sockets): each fault is
/// a clear error, and nothing hangs (every wait is under a ``HangGuard``).
@Suite("WebSocket faults")
struct WebSocketFaultTests {
    /// The error the first read of `path` ends with (nil when the stream ended normally).
    private func firstFailure(_ path: String, options: WebSocketOptions = WebSocketOptions()) async throws -> CurlewError? {
        let server = try await PythonWebSocketServer.start(script: "websocket_fault_server.py")
        let session = Session()
        let task = Task { () -> CurlewError? in
            let socket = try await session.webSocket(server.url(path), options: options)
            do {
                for try await _ in socket.messages {}
            } catch {
                return error as? CurlewError
            }
            return nil
        }
        let outcome = await HangGuard.result(of: task, within: .seconds(300))
        await session.shutdown()
        await server.stop()
        let result = try #require(outcome, "the read of \(path) hung")
        return try result.get()
    }

    @Test func connectionEndedWithoutCloseFrame() async throws {
        let error = try #require(try await firstFailure("/drop"))
        #expect(error.kind == .webSocketClosed)
        #expect(error.message.contains("without a close frame"))
    }

    @Test func reservedOpcode() async throws {
        let error = try #require(try await firstFailure("/reserved-opcode"))
        #expect(error.kind == .webSocketProtocolError)
        #expect(error.message.contains("reserved opcode 3"))
    }

    @Test func maskedServerFrame() async throws {
        let error = try #require(try await firstFailure("/masked"))
        #expect(error.kind == .webSocketProtocolError)
        #expect(error.message.contains("masked"))
    }

    @Test func oversizedFrameIsRefusedAtItsHeader() async throws {
        let error = try #require(try await firstFailure("/oversized"))
        #expect(error.kind == .bodyTooLarge)
        #expect(error.message.contains("maximum frame size"))
    }

    @Test func invalidUTF8Text() async throws {
        let error = try #require(try await firstFailure("/invalid-utf8"))
        #expect(error.kind == .webSocketProtocolError)
        #expect(error.message.contains("UTF-8"))
    }

    @Test func utf8IsCheckedAcrossFragments() async throws {
        let server = try await PythonWebSocketServer.start(script: "websocket_fault_server.py")
        let session = Session()
        let task = Task { () -> (WebSocketMessage?, CurlewError?) in
            let socket = try await session.webSocket(server.url("/split-utf8"))
            var first: WebSocketMessage?
            do {
                for try await message in socket.messages where first == nil { first = message }
            } catch {
                return (first, error as? CurlewError)
            }
            return (first, nil)
        }
        let outcome = try #require(await HangGuard.result(of: task, within: .seconds(300)))
        let (first, error) = try outcome.get()
        // A character split over two fragments is one character; a sequence the next fragment
        // breaks is refused (1007).
        #expect(first == .text("café"))
        #expect(error?.kind == .webSocketProtocolError)
        #expect(error?.message.contains("UTF-8") == true)
        await session.shutdown()
        await server.stop()
    }

    @Test func handshakeRefusedCarriesTheResponse() async throws {
        let server = try await PythonWebSocketServer.start(script: "websocket_fault_server.py")
        let session = Session()
        await #expect {
            _ = try await session.webSocket(server.url("/status/403"))
        } throws: { error in
            let error = error as? CurlewError
            return error?.kind == .webSocketHandshakeFailed && error?.status?.code == 403
                && error?.responseHead?.headerFields[HTTPField.Name("X-Reason")!] == "test"
                && error?.message.contains("403") == true
        }
        await session.shutdown()
        await server.stop()
    }

    @Test func aSilentServerMeetsTheIdleTimeout() async throws {
        var options = WebSocketOptions()
        options.idleTimeout = .seconds(1)
        let error = try #require(try await firstFailure("/ignore-close", options: options))
        #expect(error.kind == .idleTimeout)
        #expect(error.message.contains("nothing arrived"))
    }

    @Test func redirectsAreNotFollowed() async throws {
        let server = try await PythonWebSocketServer.start(script: "websocket_fault_server.py")
        let session = Session()
        await #expect {
            _ = try await session.webSocket(server.url("/status/302"), headers: ["Authorization": "Bearer secret-token"])
        } throws: { error in
            let error = error as? CurlewError
            return error?.kind == .webSocketHandshakeFailed && error?.status?.code == 302
                && error?.message.contains("redirects are not followed") == true
                && error?.description.contains("secret-token") == false
        }
        await session.shutdown()
        await server.stop()
    }

    @Test func serverThatStopsReadingFailsTheSend() async throws {
        let server = try await PythonWebSocketServer.start(script: "websocket_fault_server.py")
        let session = Session()
        var options = WebSocketOptions()
        options.sendTimeout = .seconds(2)
        options.compression = nil
        let socket = try await session.webSocket(server.url("/no-read"), options: options)
        let task = Task { () throws -> CurlewError? in
            let chunk = Data(repeating: 7, count: 1 << 20)
            // The socket buffers take a few MiB; far fewer than 1 GiB.
            for _ in 0..<1024 {
                do throws(CurlewError) {
                    try await socket.send(data: chunk)
                } catch {
                    return error
                }
            }
            return nil
        }
        let outcome = try #require(await HangGuard.result(of: task, within: .seconds(300)), "the sends hung")
        let error = try #require(try outcome.get())
        #expect(error.kind == .idleTimeout)
        #expect(error.message.contains("took no bytes"))
        await #expect(throws: CurlewError.self) { try await socket.send(text: "after") }
        await session.shutdown()
        await server.stop()
    }

    @Test func closeReturnsWhenTheServerNeverAnswers() async throws {
        let server = try await PythonWebSocketServer.start(script: "websocket_fault_server.py")
        let session = Session()
        var options = WebSocketOptions()
        options.closeTimeout = .seconds(1)
        let socket = try await session.webSocket(server.url("/ignore-close"), options: options)
        let task = Task { () throws in await socket.close(code: .normalClosure, reason: "done") }
        #expect(await HangGuard.result(of: task, within: .seconds(300)) != nil, "close() hung")
        await #expect(throws: CurlewError.self) { try await socket.send(text: "after") }
        await session.shutdown()
        await server.stop()
    }

    @Test func aConsumerThatStopsReadingStopsTheSocketReads() async throws {
        let server = try await PythonWebSocketServer.start(script: "websocket_fault_server.py")
        let session = Session()
        var options = WebSocketOptions()
        options.incomingBufferSize = 1 << 20
        let socket = try await session.webSocket(server.url("/flood"), options: options)
        // Waits until the server's writes stop advancing: it met TCP's flow control.
        var written = -1
        while true {
            try await Task.sleep(for: .milliseconds(300))
            let status = try await session.webSocket(server.url("/flood-status"))
            var now = -1
            for try await case .text(let text) in status.messages {
                now = Int(text) ?? -1
                break
            }
            await status.close()
            if now == written { break }
            written = now
        }
        // 64 MiB were to be sent; the 1 MiB buffer and the sockets' buffers hold far less.
        #expect(written < 24 << 20, "the server wrote \(written) bytes to a consumer that read none")
        var received = 0
        for try await case .binary(let data) in socket.messages {
            received += data.count
            if received >= 64 << 20 { break }
        }
        #expect(received == 64 << 20)
        await socket.close()
        await session.shutdown()
        await server.stop()
    }

    @Test func everyClientFrameIsMaskedWithAFreshKey() async throws {
        let server = try await PythonWebSocketServer.start(script: "websocket_fault_server.py")
        let session = Session()
        let socket = try await session.webSocket(server.url("/report-masks"))
        try await socket.send(text: "one")
        try await socket.send(data: Data([1, 2, 3]))
        try await socket.ping()
        var report = ""
        for try await case .text(let text) in socket.messages {
            report = text
            break
        }
        let keys = report.split(separator: ",").map(String.init)
        #expect(keys.count == 3)
        #expect(!keys.contains("-"), "an unmasked frame: \(report)")
        #expect(Set(keys).count == 3, "a masking key was used twice: \(report)")
        await socket.close()
        await session.shutdown()
        await server.stop()
    }

    @Test func cancellingTheConsumerClosesTheConnection() async throws {
        let server = try await PythonWebSocketServer.start()
        let session = Session()
        let socket = try await session.webSocket(server.url("/echo"))
        let consumer = Task {
            for try await _ in socket.messages {}
        }
        consumer.cancel()
        _ = await consumer.result
        let outcome = await HangGuard.result(of: Task {
            // The close goes out in the background: sends fail once it did.
            while true {
                do {
                    try await socket.send(text: "still open?")
                } catch let error as CurlewError {
                    return error.kind
                }
                try await Task.sleep(for: .milliseconds(20))
            }
        }, within: .seconds(300))
        #expect(try outcome?.get() == .webSocketClosed)
        await session.shutdown()
        await server.stop()
    }
}
