@testable import Curlew
import Foundation
import Synchronization
import Testing
import TestServer

/// ``ProxySelector``: the proxy chosen per hop from the URL, as a PAC file does, checked on the
/// wire — tinyproxy's `Via`, the SOCKS handshakes ``SOCKSRecordingProxy`` records, and neither
/// for a direct request.
@Suite("Proxy selector: a proxy chosen for each hop from its URL")
struct ProxySelectorTests {
    /// A name only the SOCKS proxy resolves.
    static let socksOnlyName = "curlew-selector-socks.invalid"

    /// The URLs a selector was asked about, in order.
    final class Asked: Sendable {
        let urls = Mutex<[String]>([])
        func note(_ url: URL) { urls.withLock { $0.append(url.absoluteString) } }
        var all: [String] { urls.withLock { $0 } }
    }

    private func selecting(_ selector: ProxySelector, sessionProxy: ProxyConfiguration = .direct) -> Session {
        var configuration = SessionConfiguration()
        configuration.proxy = sessionProxy
        configuration.proxySelector = selector
        return Session(configuration: configuration)
    }

    @Test func eachRequestTakesThePathItsURLChose() async throws {
        let server = try await Fixtures.server()
        let socks = try await SOCKSRecordingProxy.start(names: [Self.socksOnlyName: "127.0.0.1"])
        try await ProxyTesting.withProxy(.tinyproxy) { tinyproxy in
            let asked = Asked()
            let session = selecting(
                ProxySelector { url in
                    asked.note(url)
                    switch url.host {
                    case "127.0.0.1": return .explicit(.http, host: "127.0.0.1", port: tinyproxy.port)
                    case Self.socksOnlyName: return .explicit(.socks5h, host: "127.0.0.1", port: socks.port)
                    default: return .direct
                    }
                }, sessionProxy: .explicit(.http, host: "127.0.0.1", port: tinyproxy.port))

            let viaHTTPProxy = try Fixtures.echo(try await session.request(server.url("/get?path=http")).validate().data())
            #expect(viaHTTPProxy.headers["via"]?.contains("tinyproxy") == true, "\(viaHTTPProxy.headers)")
            #expect(socks.handshakes.isEmpty)

            let socksURL = try #require(URL(string: "http://\(Self.socksOnlyName):\(server.port)/get?path=socks"))
            let viaSOCKS = try Fixtures.echo(try await session.request(socksURL).validate().data())
            #expect(viaSOCKS.headers["via"] == nil)
            #expect(socks.handshakes.count == 1)
            #expect(socks.handshakes.last?.target == Self.socksOnlyName)

            // Direct, on a pooled handle that carried a proxy; the session's own proxy is not used.
            let direct = try Fixtures.echo(try await session.request(server.localhostURL("/get?path=direct")).validate().data())
            #expect(direct.headers["via"] == nil)
            #expect(socks.handshakes.count == 1)
            #expect(asked.all.count == 3, "\(asked.all)")
            await session.shutdown()
        }
        await socks.stop()
    }

    @Test func aRedirectToAnotherHostGetsTheChoiceForItsOwnURLAndNoProxyCredentials() async throws {
        let server = try await Fixtures.server()
        try await ProxyTesting.withProxy(.tinyproxy, username: "curlew", password: ProxyTesting.password) { tinyproxy in
            let asked = Asked()
            let session = selecting(
                ProxySelector { url in
                    asked.note(url)
                    return url.host == "127.0.0.1"
                        ? .explicit(.http, host: "127.0.0.1", port: tinyproxy.port, username: "curlew", password: ProxyTesting.password)
                        : .direct
                })
            let target = server.localhostURL("/get?hop=2").absoluteString
            let start = server.url("/redirect-to?url=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
            let response = try await session.request(start).validate().response
            let echo = try Fixtures.echo(response.value)
            // The second hop went direct: no proxy saw it, and no proxy credentials reached it.
            #expect(echo.headers["via"] == nil, "\(echo.headers)")
            #expect(echo.headers["proxy-authorization"] == nil)
            #expect(!String(decoding: response.value, as: UTF8.self).contains(ProxyTesting.password))
            #expect(asked.all == [start.absoluteString, target], "\(asked.all)")

            // And back: a redirect from the direct host to the proxied one goes through the proxy.
            let back = server.url("/get?hop=back").absoluteString
            let reverse = server.localhostURL("/redirect-to?url=\(back.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
            let proxied = try Fixtures.echo(try await session.request(reverse).validate().data())
            #expect(proxied.headers["via"]?.contains("tinyproxy") == true, "\(proxied.headers)")
            await session.shutdown()
        }
    }

    @Test func aRequestsOwnProxyWinsOverTheSelector() async throws {
        let server = try await Fixtures.server()
        try await ProxyTesting.withProxy(.tinyproxy) { tinyproxy in
            let asked = Asked()
            let session = selecting(
                ProxySelector { url in
                    asked.note(url)
                    return .explicit(.http, host: "127.0.0.1", port: tinyproxy.port)
                })
            var options = RequestOptions()
            options.proxy = .direct
            let echo = try Fixtures.echo(try await session.request(server.url("/get"), options: options).validate().data())
            #expect(echo.headers["via"] == nil)
            #expect(asked.all.isEmpty)
            await session.shutdown()
        }
    }

    @Test func aChoiceThatIsNotValidFailsTheHopBeforeAnyConnection() async throws {
        let server = try await Fixtures.server()
        let socks = try await SOCKSRecordingProxy.start()
        let choices: [ProxyConfiguration] = [
            .explicit(.http, host: "", port: 3128),
            .explicit(.http, host: "127.0.0.1", port: 0),
            .explicit(.socks4, host: "127.0.0.1", port: socks.port, username: "u", password: ProxyTesting.password),
            .explicit(.socks5, host: "127.0.0.1", port: socks.port, username: "u", password: "p", authentication: .digest),
        ]
        for choice in choices {
            let session = selecting(ProxySelector { _ in choice })
            do {
                _ = try await session.request(server.url("/get")).data()
                Issue.record("expected invalidRequest for \(choice)")
            } catch {
                #expect(error.kind == .invalidRequest, "\(error)")
                #expect(!error.description.contains(ProxyTesting.password))
            }
            await session.shutdown()
        }
        // On a redirect hop too: the first hop is direct, the second's choice is refused.
        let session = selecting(ProxySelector { url in url.host == "localhost" ? .explicit(.http, host: "", port: 1) : .direct })
        let target = server.localhostURL("/get").absoluteString
        do {
            _ = try await session.request(
                server.url("/redirect-to?url=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
            ).data()
            Issue.record("expected invalidRequest on the redirect hop")
        } catch {
            #expect(error.kind == .invalidRequest, "\(error)")
        }
        await session.shutdown()
        #expect(socks.connections == 0)
        await socks.stop()
    }

    @Test func cURLDescriptionPrintsTheChoiceForTheRequestsURL() async throws {
        let server = try await Fixtures.server()
        let session = selecting(
            ProxySelector { url in
                url.host == "127.0.0.1"
                    ? .explicit(.socks5h, host: "127.0.0.1", port: 1080, username: "me", password: ProxyTesting.password)
                    : .direct
            })
        let proxied = session.request(server.url("/get")).cURLDescription()
        #expect(proxied.contains("-x 'socks5h://127.0.0.1:1080' -U 'me:***'"), "\(proxied)")
        #expect(!proxied.contains(ProxyTesting.password))
        let direct = session.request(server.localhostURL("/get")).cURLDescription()
        #expect(direct.contains("--noproxy '*'"), "\(direct)")
        await session.shutdown()
    }
}
