@testable import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

/// Requests through real proxies started by the tests: tinyproxy (HTTP, with `CONNECT`) and
/// microsocks (SOCKS5), with and without credentials.
@Suite(
    "Proxies: explicit, per request, with credentials, and their failures",
    .enabled(if: NginxServer.isAvailable, "nginx is not installed"),
    .nginx(fixedResponses: ["/through-tunnel": "tunnelled"]))
struct ProxyTests {
    static let password = ProxyTesting.password

    private func session(_ proxy: ProxyConfiguration, caCertificate: String? = nil) -> Session {
        ProxyTesting.session(proxy, caCertificate: caCertificate)
    }

    private func withProxy(
        _ program: LocalProxy.Program, username: String? = nil, password: String? = nil,
        _ body: (LocalProxy) async throws -> Void
    ) async throws {
        try await ProxyTesting.withProxy(program, username: username, password: password, body)
    }

    private func expectProxyFailure(_ request: DataRequest, naming proxy: String) async {
        await ProxyTesting.expectProxyFailure(request, naming: proxy)
    }

    @Test func httpRequestsGoThroughAnHTTPProxy() async throws {
        let server = try await Fixtures.server()
        try await withProxy(.tinyproxy) { proxy in
            let session = session(.explicit(.http, host: "127.0.0.1", port: proxy.port))
            let echo = try Fixtures.echo(try await session.request(server.url("/get?via=proxy")).data())
            // tinyproxy adds its Via field: the request passed through it.
            #expect(echo.headers["via"]?.contains("tinyproxy") == true)
            await session.shutdown()
        }
    }

    @Test func httpsRequestsTunnelThroughAnHTTPProxyWithCredentials() async throws {
        let nginx = try NginxSuiteScope.server()
        try await withProxy(.tinyproxy, username: "curlew", password: Self.password) { proxy in
            let good = session(
                .explicit(.http, host: "127.0.0.1", port: proxy.port, username: "curlew", password: Self.password),
                caCertificate: nginx.caCertificatePath)
            let text = try await good.request(nginx.url("/through-tunnel")).validate().string()
            #expect(text == "tunnelled")
            // The response is the server's, not the proxy's answer to CONNECT (libcurl hands that
            // head to the header callback too unless told not to): its status, its fields.
            let tunnelled = try await good.request(nginx.url("/through-tunnel")).response
            #expect(tunnelled.head.headerFields[.server]?.hasPrefix("nginx") == true, "\(tunnelled.head)")
            #expect(tunnelled.head.headerFields[HTTPField.Name("Proxy-agent")!] == nil, "\(tunnelled.head)")
            let missing = try await good.request(nginx.url("/no-such-file-through-tunnel")).response
            #expect(missing.head.status.code == 404, "\(missing.head)")
            await good.shutdown()

            let wrong = session(
                .explicit(.http, host: "127.0.0.1", port: proxy.port, username: "curlew", password: "not-" + Self.password),
                caCertificate: nginx.caCertificatePath)
            await expectProxyFailure(wrong.request(nginx.url("/through-tunnel")), naming: "127.0.0.1:\(proxy.port)")
            await wrong.shutdown()
        }
    }

    @Test func missingHTTPProxyCredentialsForAnHTTPURLAreAProxyFailure() async throws {
        // Without credentials tinyproxy answers 407, which only a proxy sends. (With a wrong
        // password it answers 401 instead, indistinguishable from the target's own 401, so
        // that one reaches the caller as a 401 response, as it does with curl.)
        let server = try await Fixtures.server()
        try await withProxy(.tinyproxy, username: "curlew", password: Self.password) { proxy in
            let anonymous = session(.explicit(.http, host: "127.0.0.1", port: proxy.port))
            await expectProxyFailure(anonymous.request(server.url("/get")), naming: "127.0.0.1:\(proxy.port)")
            await anonymous.shutdown()
        }
    }

    @Test(arguments: [ProxyConfiguration.Kind.socks5, .socks5h])
    func socks5WithAndWithoutCredentials(_ kind: ProxyConfiguration.Kind) async throws {
        let server = try await Fixtures.server()
        let host = kind == .socks5h ? server.localhostURL("/get?socks=1") : server.url("/get?socks=1")
        try await withProxy(.microsocks, username: "curlew", password: Self.password) { proxy in
            let good = session(
                .explicit(kind, host: "127.0.0.1", port: proxy.port, username: "curlew", password: Self.password))
            let body = try await good.request(host).validate().data()
            #expect(!body.isEmpty)
            await good.shutdown()

            let anonymous = session(.explicit(kind, host: "127.0.0.1", port: proxy.port))
            await expectProxyFailure(anonymous.request(host), naming: "127.0.0.1:\(proxy.port)")
            await anonymous.shutdown()
            let wrong = session(
                .explicit(kind, host: "127.0.0.1", port: proxy.port, username: "curlew", password: "bad"))
            await expectProxyFailure(wrong.request(host), naming: "127.0.0.1:\(proxy.port)")
            await wrong.shutdown()
        }
    }

    @Test func anUnreachableProxyIsNamedNotTheTarget() async throws {
        let server = try await Fixtures.server()
        let closed = try closedLoopbackPort()
        let session = session(.explicit(.http, host: "127.0.0.1", port: closed, username: "u", password: Self.password))
        await expectProxyFailure(session.request(server.url("/get")), naming: "http://127.0.0.1:\(closed)")
        await session.shutdown()
    }

    @Test func aRequestMayOverrideTheSessionsProxyWithoutLeavingItOnThePooledHandle() async throws {
        let server = try await Fixtures.server()
        try await withProxy(.tinyproxy) { proxy in
            let session = session(.none)
            var options = RequestOptions()
            options.proxy = .explicit(.http, host: "127.0.0.1", port: proxy.port)
            let proxied = try Fixtures.echo(try await session.request(server.url("/get?n=1"), options: options).data())
            #expect(proxied.headers["via"]?.contains("tinyproxy") == true)
            // The same handle, reused: the session's "no proxy" is back.
            let direct = try Fixtures.echo(try await session.request(server.url("/get?n=2")).data())
            #expect(direct.headers["via"] == nil)
            await session.shutdown()
        }
    }

    @Test func bypassedHostsGoDirect() async throws {
        let server = try await Fixtures.server()
        try await withProxy(.tinyproxy) { proxy in
            let session = session(.explicit(.http, host: "127.0.0.1", port: proxy.port, bypassing: ["127.0.0.1"]))
            let echo = try Fixtures.echo(try await session.request(server.url("/get")).data())
            #expect(echo.headers["via"] == nil)
            await session.shutdown()
        }
    }

    @Test func cURLDescriptionShowsTheProxyButNotItsPassword() async throws {
        let server = try await Fixtures.server()
        let session = session(.explicit(.socks5h, host: "127.0.0.1", port: 1080, username: "me", password: Self.password))
        let command = session.request(server.url("/get")).cURLDescription()
        #expect(command.contains("-x 'socks5h://127.0.0.1:1080'"))
        #expect(command.contains("-U 'me:***'"))
        #expect(!command.contains(Self.password))
        let direct = Self.direct.request(server.url("/get")).cURLDescription()
        #expect(direct.contains("--noproxy '*'"))
        await session.shutdown()
    }

    static let direct: Session = {
        var configuration = SessionConfiguration()
        configuration.proxy = .none
        return Session(configuration: configuration)
    }()

    @Test func badProxySettingsAreClearErrors() async throws {
        let server = try await Fixtures.server()
        for proxy in [
            ProxyConfiguration.explicit(.http, host: "127.0.0.1", port: 0),
            .explicit(.http, host: "", port: 8080),
            .explicit(.http, host: "user@host", port: 8080),
        ] {
            var options = RequestOptions()
            options.proxy = proxy
            do {
                _ = try await Self.direct.request(server.url("/get"), options: options).data()
                Issue.record("expected invalidRequest for \(proxy)")
            } catch {
                #expect(error.kind == .invalidRequest, "\(error)")
            }
        }
    }
}

/// The environment's proxy rules, without a network.
@Suite("Environment proxy rules")
struct EnvironmentProxyRuleTests {
    @Test func loopbackIsAlwaysBypassedBesideNoProxy() {
        #expect(ProxyConfiguration.environmentBypassList(environment: [:]) == "localhost,127.0.0.0/8,::1")
        #expect(
            ProxyConfiguration.environmentBypassList(environment: ["no_proxy": " internal.example , 10.0.0.0/8"])
                == "internal.example,10.0.0.0/8,localhost,127.0.0.0/8,::1")
        #expect(ProxyConfiguration.environmentBypassList(environment: ["NO_PROXY": "a.example"]).hasPrefix("a.example,"))
        #expect(ProxyConfiguration.environmentBypassList(environment: ["no_proxy": "*"]) == "*")
    }

    @Test func theEnvironmentProxyFollowsCurlsVariablesAndHidesItsPassword() throws {
        let https = try #require(URL(string: "https://api.example/"))
        let http = try #require(URL(string: "http://api.example/"))
        let environment = ["https_proxy": "http://user:secret@proxy.example:3128", "HTTP_PROXY": "http://ignored:1"]
        #expect(ProxyConfiguration.environmentProxy(for: https, environment: environment) == "http://user:***@proxy.example:3128 (from https_proxy)")
        // Upper-case HTTP_PROXY is ignored, as curl ignores it (httpoxy).
        #expect(ProxyConfiguration.environmentProxy(for: http, environment: environment) == nil)
        #expect(ProxyConfiguration.environmentProxy(for: http, environment: ["ALL_PROXY": "socks5h://p:1"]) == "socks5h://p:1 (from ALL_PROXY)")
    }

    @Test func aSessionMadeWhileTheEnvironmentNamesNoProxyUsesNone() {
        #expect(ProxyConfiguration.environment.resolvingEnvironment([:]) == .none)
        #expect(ProxyConfiguration.environment.resolvingEnvironment(["no_proxy": "a.example", "PATH": "/bin"]) == .none)
        // Empty values name no proxy, as curl reads them; upper-case HTTP_PROXY is not read at all.
        #expect(ProxyConfiguration.environment.resolvingEnvironment(["http_proxy": "", "HTTP_PROXY": "http://p:1"]) == .none)
        for name in ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"] {
            #expect(ProxyConfiguration.environment.resolvingEnvironment([name: "http://p:1"]) == .environment, "\(name)")
        }
        let explicit = ProxyConfiguration.explicit(.http, host: "127.0.0.1", port: 9)
        #expect(explicit.resolvingEnvironment([:]) == explicit)
        #expect(ProxyConfiguration.none.resolvingEnvironment(["http_proxy": "http://p:1"]) == .none)
    }

    @Test func theLoopAndTheTransfersGetTheResolvedProxyAndThePublicConfigurationKeepsItsOwn() {
        let configuration = SessionConfiguration()
        #expect(configuration.proxy == .environment)
        #expect(Session.transportConfiguration(configuration, environment: [:]).proxy == .none)
        #expect(Session.transportConfiguration(configuration, environment: ["all_proxy": "socks5h://p:1"]).proxy == .environment)
        // What cURLDescription prints follows the proxy in use.
        let request = OutgoingRequest(url: URL(string: "http://127.0.0.1:9/x")!)
        let none = CURLCommand.describe(.success(request), configuration: configuration, sessionProxy: .none)
        #expect(none.contains("--noproxy '*'"), "\(none)")
        let environment = CURLCommand.describe(.success(request), configuration: configuration, sessionProxy: .environment)
        #expect(environment.contains("--noproxy 'localhost,"), "\(environment)")
    }
}
