@testable import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

/// What one request through a proxy leaves behind — a pooled handle, an open tunnel, a TLS
/// session — never serves another request that should not have it.
@Suite(
    "Proxies: nothing of one request serves another",
    .enabled(if: NginxServer.isAvailable, "nginx is not installed"),
    .nginx(fixedResponses: ["/isolated": "isolated\n"]))
struct ProxyIsolationTests {
    private func through(_ port: Int, username: String? = nil, password: String? = nil) -> RequestOptions {
        var options = RequestOptions()
        options.proxy = .explicit(.http, host: "127.0.0.1", port: port, username: username, password: password)
        return options
    }

    /// A tunnel is authenticated once, by its `CONNECT`: a request with other proxy
    /// credentials (or none) must open its own, never ride one another credential opened.
    @Test func aTunnelOpenedWithOneProxyCredentialNeverCarriesARequestWithAnother() async throws {
        let nginx = try NginxSuiteScope.server()
        try await ProxyTesting.withProxy(.tinyproxy, username: "curlew", password: ProxyTesting.password) { proxy in
            let session = ProxyTesting.session(.none, caCertificate: nginx.caCertificatePath)
            let name = "http://127.0.0.1:\(proxy.port)"
            let opened = try await session.request(
                nginx.url("/isolated"), options: through(proxy.port, username: "curlew", password: ProxyTesting.password)
            ).response
            #expect(opened.head.status.code == 200)
            // The control: the same credentials do ride the open tunnel.
            let again = try await session.request(
                nginx.url("/isolated"), options: through(proxy.port, username: "curlew", password: ProxyTesting.password)
            ).response
            #expect(again.metrics.connectionReused, "\(again.metrics)")
            // The authenticated tunnel is still open; these must not use it.
            await ProxyTesting.expectProxyFailure(session.request(nginx.url("/isolated"), options: through(proxy.port)), naming: name)
            await ProxyTesting.expectProxyFailure(
                session.request(nginx.url("/isolated"), options: through(proxy.port, username: "curlew", password: "wrong")),
                naming: name)
            await ProxyTesting.expectProxyFailure(
                session.request(nginx.url("/isolated"), options: through(proxy.port, username: "mallory", password: ProxyTesting.password)),
                naming: name)
            await session.shutdown()
        }
    }

    /// libcurl keeps connections by where they lead: a tunnel through one proxy is never taken
    /// for a request through another, nor for a direct one, nor for one through a proxy that
    /// is down (whose request must fail, naming it).
    @Test func aConnectionThroughOneProxyNeverCarriesARequestForAnotherOrADirectOne() async throws {
        let nginx = try NginxSuiteScope.server()
        let dead = try closedLoopbackPort()
        try await ProxyTesting.withProxy(.tinyproxy) { first in
            try await ProxyTesting.withProxy(.tinyproxy) { second in
                let session = ProxyTesting.session(.none, caCertificate: nginx.caCertificatePath)
                let viaFirst = try await session.request(nginx.url("/isolated"), options: through(first.port)).response
                #expect(viaFirst.metrics.remotePort == first.port, "\(viaFirst.metrics)")
                // The control: a request through the same proxy rides the open tunnel.
                let again = try await session.request(nginx.url("/isolated"), options: through(first.port)).response
                #expect(again.metrics.connectionReused && again.metrics.remotePort == first.port, "\(again.metrics)")

                let viaSecond = try await session.request(nginx.url("/isolated"), options: through(second.port)).response
                #expect(viaSecond.metrics.remotePort == second.port && !viaSecond.metrics.connectionReused, "\(viaSecond.metrics)")
                let direct = try await session.request(nginx.url("/isolated")).response
                #expect(direct.metrics.remotePort == nginx.port && !direct.metrics.connectionReused, "\(direct.metrics)")
                await ProxyTesting.expectProxyFailure(
                    session.request(nginx.url("/isolated"), options: through(dead)), naming: "http://127.0.0.1:\(dead)")
                await session.shutdown()
            }
        }
    }
}
