@testable import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

/// HTTPS through an HTTP proxy's `CONNECT` tunnel (tinyproxy to nginx): the response is always
/// the origin's, on the first request of every new tunnel as on later ones, and a proxy's
/// refusal of the tunnel is a `proxyFailure` that names the proxy and its status.
@Suite(
    "Proxy tunnels: the origin's response, and the proxy's refusals",
    .enabled(if: NginxServer.isAvailable, "nginx is not installed"),
    .nginx(fixedResponses: ["/tunnelled-file": "from the origin\n"]))
struct ProxyTunnelTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let httpVersion: HTTPVersionPreference
        let withCredentials: Bool
        var expectedVersion: HTTPVersion { httpVersion == .http1_1 ? .http1_1 : .http2 }
        var testDescription: String { "\(expectedVersion.rawValue), \(withCredentials ? "with" : "without") proxy credentials" }
    }

    static let cases = [HTTPVersionPreference.http1_1, .http2OverTLS].flatMap { version in
        [false, true].map { Case(httpVersion: version, withCredentials: $0) }
    }

    /// Each request gets a session of its own, so each is the first request of a new tunnel
    /// (libcurl hands the proxy's `200 Connection established` head to the header callback
    /// ahead of the origin's unless told not to).
    @Test(arguments: cases)
    func theFirstResponseOfEveryNewTunnelIsTheOrigins(_ testCase: Case) async throws {
        let nginx = try NginxSuiteScope.server()
        let username = testCase.withCredentials ? "curlew" : nil
        let password = testCase.withCredentials ? ProxyTesting.password : nil
        try await ProxyTesting.withProxy(.tinyproxy, username: username, password: password) { proxy in
            let configuration = ProxyConfiguration.explicit(
                .http, host: "127.0.0.1", port: proxy.port, username: username, password: password)
            for (path, status) in [("/tunnelled-file", 200), ("/no-such-file-through-a-tunnel", 404)] {
                let session = ProxyTesting.session(
                    configuration, caCertificate: nginx.caCertificatePath, httpVersion: testCase.httpVersion)
                let response = try await session.request(nginx.url(path)).response
                let head = response.head
                #expect(head.status.code == status, "\(path): \(head)")
                #expect(response.metrics.httpVersion == testCase.expectedVersion, "\(path): \(response.metrics)")
                #expect(!response.metrics.connectionReused, "\(path): the tunnel must be new")
                #expect(head.headerFields[.server]?.hasPrefix("nginx") == true, "\(path): \(head)")
                #expect(head.headerFields[ProxyTesting.proxyAgent] == nil, "\(path): \(head)")
                if status == 200 {
                    #expect(head.headerFields[.eTag] != nil, "\(head)")
                    #expect(head.headerFields[.contentType] == "text/plain", "\(head)")
                    #expect(String(decoding: response.value, as: UTF8.self) == "from the origin\n")
                } else {
                    #expect(head.headerFields[.contentType] == "text/html", "\(head)")
                }
                await session.shutdown()
            }
            // validate() sees the origin's 404 on a new tunnel.
            let session = ProxyTesting.session(
                configuration, caCertificate: nginx.caCertificatePath, httpVersion: testCase.httpVersion)
            let refused = await failure(session.request(nginx.url("/no-such-file-through-a-tunnel")).validate())
            #expect(refused?.kind == .unacceptableStatus, "\(String(describing: refused))")
            #expect(refused?.status?.code == 404, "\(String(describing: refused))")
            await session.shutdown()
        }
    }
}

extension ProxyTunnelTests {
    /// The error of a request through `proxy` that the proxy refuses, checked to name the proxy
    /// and `status`.
    private func expectRefusal(
        _ request: DataRequest, proxyPort: Int, status: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let error = await ProxyTesting.expectProxyFailure(
            request, naming: "http://127.0.0.1:\(proxyPort)", sourceLocation: sourceLocation)
        #expect(error?.message.contains("(\(status))") == true, "\(String(describing: error))", sourceLocation: sourceLocation)
        // The refusal is the proxy's, not a response of the origin.
        #expect(error?.status == nil, "\(String(describing: error))", sourceLocation: sourceLocation)
    }

    /// How tinyproxy is made to refuse a tunnel, by the status it answers.
    enum Refusal: Int, Sendable, CaseIterable {
        /// It wants credentials the request does not give.
        case missingCredentials = 407
        /// `ConnectPort` lets `CONNECT` reach another port only.
        case forbiddenPort = 403
        /// The origin's port is closed: tinyproxy answers 500 "Unable to connect".
        case deadOrigin = 500
    }

    @Test(arguments: Refusal.allCases)
    func aTunnelTinyproxyRefusesIsAProxyFailureNamingItsStatus(_ refusal: Refusal) async throws {
        let nginx = try NginxSuiteScope.server()
        let credentials = refusal == .missingCredentials ? ("curlew", ProxyTesting.password) : nil
        let target = refusal == .deadOrigin
            ? try #require(URL(string: "https://127.0.0.1:\(try closedLoopbackPort())/")) : nginx.url("/tunnelled-file")
        try await ProxyTesting.withProxy(
            .tinyproxy, username: credentials?.0, password: credentials?.1,
            allowingConnectTo: refusal == .forbiddenPort ? [nginx.port == 443 ? 444 : 443] : nil
        ) { proxy in
            let session = ProxyTesting.session(
                .explicit(.http, host: "127.0.0.1", port: proxy.port), caCertificate: nginx.caCertificatePath)
            await expectRefusal(session.request(target), proxyPort: proxy.port, status: refusal.rawValue)
            await session.shutdown()
        }
    }

    @Test func aRefusedTunnelIsNotRetriedAsALostConnection() async throws {
        let nginx = try NginxSuiteScope.server()
        try await ProxyTesting.withProxy(.tinyproxy, allowingConnectTo: [nginx.port == 443 ? 444 : 443]) { proxy in
            var configuration = SessionConfiguration()
            configuration.proxy = .explicit(.http, host: "127.0.0.1", port: proxy.port)
            configuration.trust = TrustConfiguration(default: .certificateAuthorities([.file(nginx.caCertificatePath)]))
            let session = Session(
                configuration: configuration, interceptors: [RetryPolicy(retryLimit: 2, backoffScale: .milliseconds(10))])
            // A retried refusal would end as retryLimitExceeded after three attempts.
            let error = await failure(session.request(nginx.url("/tunnelled-file")))
            #expect(error?.kind == .proxyFailure, "\(String(describing: error))")
            #expect(error?.message.contains("(403)") == true, "\(String(describing: error))")
            await session.shutdown()
        }
    }

    /// A hostile proxy answers `CONNECT` with a `200` carrying `Set-Cookie`, then hangs up
    /// before any TLS: the cookie is the proxy's, and never stored for the origin.
    @Test func aProxysAnswerToCONNECTNeverSetsCookiesForTheOrigin() async throws {
        let wire = try await WireServer.start()
        let jar = CookieJar()
        var configuration = SessionConfiguration()
        configuration.proxy = .explicit(.http, host: "127.0.0.1", port: wire.port)
        configuration.cookieStorage = jar
        let session = Session(configuration: configuration)
        let origin = try #require(URL(string: "https://origin.invalid:8443/account"))
        async let outcome = failure(session.request(origin))
        let connection = try await wire.nextConnection()
        _ = await connection.readHead()
        try await connection.send(
            "HTTP/1.1 200 Connection established\r\nSet-Cookie: session=planted-by-proxy; Path=/\r\n\r\n")
        await connection.close()
        let error = await outcome
        #expect(error != nil, "no TLS came through the tunnel")
        #expect(jar.cookies(for: origin).isEmpty, "\(jar.cookies(for: origin))")
        await session.shutdown()
        await wire.shutdown()
    }

    /// A scripted proxy on the wire server answers `CONNECT` with 502 (tinyproxy has no such
    /// answer); what the client sent it is checked byte for byte.
    @Test func aBadGatewayAnswerToCONNECTIsAProxyFailureNaming502() async throws {
        let wire = try await WireServer.start()
        let session = ProxyTesting.session(
            .explicit(.http, host: "127.0.0.1", port: wire.port, username: "curlew", password: ProxyTesting.password))
        async let refused: Void = expectRefusal(
            session.request("https://origin.invalid:8443/secret-path"), proxyPort: wire.port, status: 502)
        let connection = try await wire.nextConnection()
        let head = String(decoding: await connection.readHead(), as: UTF8.self)
        #expect(head.hasPrefix("CONNECT origin.invalid:8443 HTTP/1.1\r\n"), "\(head)")
        // Basic credentials for the proxy, and nothing of the request itself (its path stays
        // inside the tunnel).
        let basic = Data("curlew:\(ProxyTesting.password)".utf8).base64EncodedString()
        #expect(head.contains("\r\nProxy-Authorization: Basic \(basic)\r\n"), "\(head)")
        #expect(!head.contains("secret-path"), "\(head)")
        try await connection.send("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        await refused
        await connection.close()
        await session.shutdown()
        await wire.shutdown()
    }
}

extension ProxyTunnelTests {
    /// Proxy credentials are for the proxy: nginx at the end of a tunnel, the test server behind
    /// tinyproxy, and the test server behind microsocks (which forwards bytes as they are) see
    /// neither `Proxy-Authorization` nor `Authorization`.
    @Test func proxyCredentialsNeverReachTheOrigin() async throws {
        let nginx = try NginxSuiteScope.server()
        let server = try await Fixtures.server()
        try await ProxyTesting.withProxy(.tinyproxy, username: "curlew", password: ProxyTesting.password) { proxy in
            let session = ProxyTesting.session(
                .explicit(.http, host: "127.0.0.1", port: proxy.port, username: "curlew", password: ProxyTesting.password),
                caCertificate: nginx.caCertificatePath)
            let seen = try await session.request(nginx.url("/request-headers")).validate().string()
            #expect(seen == "proxy-authorization=[] authorization=[]\n", "\(seen)")
            let echo = try Fixtures.echo(try await session.request(server.url("/get?via=tinyproxy")).validate().data())
            #expect(echo.headers["via"]?.contains("tinyproxy") == true, "\(echo.headers)")
            #expect(echo.headers["proxy-authorization"] == nil && echo.headers["authorization"] == nil, "\(echo.headers)")
            await session.shutdown()
        }
        try await ProxyTesting.withProxy(.microsocks, username: "curlew", password: ProxyTesting.password) { proxy in
            let session = ProxyTesting.session(
                .explicit(.socks5, host: "127.0.0.1", port: proxy.port, username: "curlew", password: ProxyTesting.password))
            let echo = try Fixtures.echo(try await session.request(server.url("/get?via=socks")).validate().data())
            let names = echo.headerLines.compactMap { $0.first?.lowercased() }
            #expect(!names.contains("proxy-authorization") && !names.contains("authorization"), "\(names)")
            #expect(!echo.headerLines.contains { $0.last?.contains(ProxyTesting.password) == true }, "\(echo.headerLines)")
            await session.shutdown()
        }
    }

    /// A redirect to a host the proxy is bypassed for goes there directly, without the
    /// proxy's credentials (libcurl sends them to a proxy only).
    @Test func proxyCredentialsNeverFollowARedirectToABypassedHost() async throws {
        let server = try await Fixtures.server()
        try await ProxyTesting.withProxy(.tinyproxy, username: "curlew", password: ProxyTesting.password) { proxy in
            let session = ProxyTesting.session(
                .explicit(
                    .http, host: "127.0.0.1", port: proxy.port, username: "curlew", password: ProxyTesting.password,
                    bypassing: ["localhost"]))
            let target = server.localhostURL("/get?hop=2").absoluteString
            let url = server.url("/redirect-to?url=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
            let response = try await session.request(url).validate().response
            let echo = try Fixtures.echo(response.value)
            #expect(echo.url.hasPrefix(target), "\(echo.url)")
            #expect(response.redirects.count == 1)
            #expect(echo.headers["via"] == nil, "the second hop went direct: \(echo.headers)")
            #expect(echo.headers["proxy-authorization"] == nil && echo.headers["authorization"] == nil, "\(echo.headers)")
            await session.shutdown()
        }
    }
}
