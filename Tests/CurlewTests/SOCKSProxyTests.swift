@testable import Curlew
import Foundation
import Testing
import TestServer

/// SOCKS4, SOCKS4a, SOCKS5 and socks5h through ``SOCKSRecordingProxy``, which records each
/// handshake on the wire and resolves only the names it was given: a name that only the proxy
/// knows proves the proxy resolved it, and the handshake shows whether a name or an address
/// was sent.
@Suite("SOCKS proxies: 4, 4a, 5 and 5h, checked on the wire")
struct SOCKSProxyTests {
    /// A name no DNS knows; only the proxy's table maps it (to 127.0.0.1).
    static let proxyOnlyName = "curlew-socks-target.invalid"

    private func withProxy(
        requiredUserID: String? = nil, _ body: (SOCKSRecordingProxy) async throws -> Void
    ) async throws {
        let proxy = try await SOCKSRecordingProxy.start(
            names: [Self.proxyOnlyName: "127.0.0.1"], requiredUserID: requiredUserID)
        do {
            try await body(proxy)
        } catch {
            Issue.record(error)
        }
        await proxy.stop()
    }

    @Test(arguments: [ProxyConfiguration.Kind.socks4a, .socks5h])
    func socks4aAndSocks5hSendTheNameAndTheProxyResolvesIt(_ kind: ProxyConfiguration.Kind) async throws {
        let server = try await Fixtures.server()
        try await withProxy { proxy in
            let session = ProxyTesting.session(.explicit(kind, host: "127.0.0.1", port: proxy.port))
            let url = try #require(URL(string: "http://\(Self.proxyOnlyName):\(server.port)/get?via=\(kind)"))
            let echo = try Fixtures.echo(try await session.request(url).validate().data())
            #expect(echo.headers["host"] == "\(Self.proxyOnlyName):\(server.port)")
            let handshake = try #require(proxy.handshakes.last)
            #expect(handshake.sentName, "\(handshake)")
            #expect(handshake.target == Self.proxyOnlyName)
            #expect(handshake.port == server.port)
            let name = Array(Self.proxyOnlyName.utf8)
            if kind == .socks5h {
                // The request: VER 5, CONNECT, RSV, ATYP 3 (domain name), length, the name, port.
                #expect(handshake.version == .socks5)
                #expect(handshake.addressType == 3)
                let request: [UInt8] = [5, 1, 0, 3, UInt8(name.count)] + name + [UInt8(server.port >> 8), UInt8(server.port & 0xFF)]
                #expect(Array(handshake.bytes.suffix(request.count)) == request, "\(handshake.bytes)")
            } else {
                // VN 4, CONNECT, port, the address 0.0.0.x that says "a name follows", user ID, NUL, name, NUL.
                #expect(handshake.version == .socks4a)
                #expect(Array(handshake.bytes.prefix(7)) == [4, 1, UInt8(server.port >> 8), UInt8(server.port & 0xFF), 0, 0, 0])
                #expect(handshake.bytes[7] != 0)
                #expect(Array(handshake.bytes.suffix(name.count + 1)) == name + [0], "\(handshake.bytes)")
            }
            await session.shutdown()
        }
    }

    @Test(arguments: [ProxyConfiguration.Kind.socks4, .socks5])
    func socks4AndSocks5ResolveOnTheClientAndSendAnAddress(_ kind: ProxyConfiguration.Kind) async throws {
        let server = try await Fixtures.server()
        try await withProxy { proxy in
            let session = ProxyTesting.session(.explicit(kind, host: "127.0.0.1", port: proxy.port))
            let echo = try Fixtures.echo(try await session.request(server.url("/get?via=\(kind)")).validate().data())
            #expect(echo.args["via"] != nil)
            let handshake = try #require(proxy.handshakes.last)
            #expect(!handshake.sentName, "\(handshake)")
            #expect(handshake.target == "127.0.0.1")
            let port = [UInt8(server.port >> 8), UInt8(server.port & 0xFF)]
            if kind == .socks5 {
                #expect(handshake.addressType == 1)
                #expect(Array(handshake.bytes.suffix(10)) == [5, 1, 0, 1, 127, 0, 0, 1] + port, "\(handshake.bytes)")
            } else {
                #expect(handshake.version == .socks4)
                // VN 4, CONNECT, port, 127.0.0.1, an empty user ID.
                #expect(handshake.bytes == [4, 1] + port + [127, 0, 0, 1, 0], "\(handshake.bytes)")
            }
            // A name only the proxy could resolve fails here, on the client: nothing asks the proxy.
            let before = proxy.handshakes.count
            let url = try #require(URL(string: "http://\(Self.proxyOnlyName):\(server.port)/get"))
            do {
                _ = try await session.request(url).data()
                Issue.record("a name the client cannot resolve went through \(kind)")
            } catch let error as CurlewError {
                #expect(error.kind != .invalidRequest, "\(error)")
            }
            #expect(proxy.handshakes.count == before)
            await session.shutdown()
        }
    }

    @Test func aSOCKS4UserIDGoesInTheHandshakeAndAWrongOneIsAProxyFailure() async throws {
        let server = try await Fixtures.server()
        try await withProxy(requiredUserID: "curlew") { proxy in
            let good = ProxyTesting.session(.explicit(.socks4a, host: "127.0.0.1", port: proxy.port, username: "curlew"))
            _ = try await good.request(server.url("/get")).validate().data()
            #expect(proxy.handshakes.last?.user == "curlew")
            #expect(good.request(server.url("/get")).cURLDescription().contains("-U 'curlew:'"))
            await good.shutdown()

            let wrong = ProxyTesting.session(.explicit(.socks4, host: "127.0.0.1", port: proxy.port, username: "someone"))
            await ProxyTesting.expectProxyFailure(wrong.request(server.url("/get")), naming: "127.0.0.1:\(proxy.port)")
            #expect(proxy.handshakes.last?.user == "someone")
            await wrong.shutdown()
        }
    }

    @Test(arguments: [ProxyConfiguration.Kind.socks4, .socks4a])
    func aPasswordForSOCKS4IsRefusedBeforeAnyConnection(_ kind: ProxyConfiguration.Kind) async throws {
        let server = try await Fixtures.server()
        try await withProxy { proxy in
            let session = ProxyTesting.session(
                .explicit(kind, host: "127.0.0.1", port: proxy.port, username: "curlew", password: ProxyTesting.password))
            do {
                _ = try await session.request(server.url("/get")).data()
                Issue.record("a SOCKS4 proxy took a password it cannot carry")
            } catch let error as CurlewError {
                #expect(error.kind == .invalidRequest, "\(error)")
                #expect(error.description.contains("no password"), "\(error)")
                #expect(!error.description.contains(ProxyTesting.password))
            }
            #expect(proxy.connections == 0)
            await session.shutdown()
        }
    }

    @Test(arguments: [ProxyConfiguration.Kind.socks4, .socks4a, .socks5, .socks5h])
    func cURLDescriptionNamesTheSOCKSVersion(_ kind: ProxyConfiguration.Kind) async throws {
        let server = try await Fixtures.server()
        let session = ProxyTesting.session(.explicit(kind, host: "127.0.0.1", port: 1080))
        #expect(session.request(server.url("/get")).cURLDescription().contains("-x '\(kind.rawValue)://127.0.0.1:1080'"))
        await session.shutdown()
    }
}
