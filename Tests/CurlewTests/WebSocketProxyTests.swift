import Curlew
import Foundation
import Testing
import TestServer

/// WebSockets through the session's proxy: libcurl makes the connection (a `CONNECT` tunnel
/// through tinyproxy, or SOCKS5 through microsocks), Curlew speaks RFC 6455 over it. A wrong
/// proxy password fails the open, which shows the connection really went through the proxy.
@Suite("WebSocket through proxies")
struct WebSocketProxyTests {
    private func echo(through program: LocalProxy.Program, kind: ProxyConfiguration.Kind) async throws {
        let server = try await PythonWebSocketServer.start()
        try await ProxyTesting.withProxy(program, username: "curlew", password: ProxyTesting.password) { proxy in
            let session = ProxyTesting.session(
                .explicit(kind, host: "127.0.0.1", port: proxy.port, username: "curlew", password: ProxyTesting.password))
            let socket = try await session.webSocket(server.url("/echo"))
            try await socket.send(text: "through \(program)")
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text("through \(program)"))
            await socket.close()
            await session.shutdown()
            let wrong = ProxyTesting.session(
                .explicit(kind, host: "127.0.0.1", port: proxy.port, username: "curlew", password: "not-" + ProxyTesting.password))
            await #expect {
                _ = try await wrong.webSocket(server.url("/echo"))
            } throws: { error in
                let error = error as? CurlewError
                return error?.kind == .proxyFailure && error?.description.contains(ProxyTesting.password) == false
            }
            await wrong.shutdown()
        }
        await server.stop()
    }

    @Test func throughAnHTTPProxyTunnel() async throws {
        try await echo(through: .tinyproxy, kind: .http)
    }

    @Test func throughASOCKS5Proxy() async throws {
        try await echo(through: .microsocks, kind: .socks5)
    }
}
