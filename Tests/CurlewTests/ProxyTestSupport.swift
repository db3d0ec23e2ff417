@testable import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

/// Helpers shared by the proxy suites: sessions through a proxy, a proxy scoped to a test, and
/// the checks of a proxy's failure.
enum ProxyTesting {
    /// The password every proxy test gives its proxies; no error may show it.
    static let password = "pr0xy-s3cret"

    /// `Proxy-agent`, the field tinyproxy puts in its answer to `CONNECT` (and only there).
    static let proxyAgent = HTTPField.Name("Proxy-agent")!

    /// A session through `proxy`, trusting the origins by `originTrust`, or only by
    /// `caCertificate` when given.
    static func session(
        _ proxy: ProxyConfiguration, caCertificate: String? = nil, originTrust: TrustPolicy? = nil,
        httpVersion: HTTPVersionPreference? = nil
    ) -> Session {
        var configuration = SessionConfiguration()
        configuration.proxy = proxy
        if let policy = originTrust ?? caCertificate.map({ TrustPolicy.certificateAuthorities([.file($0)]) }) {
            configuration.trust = TrustConfiguration(default: policy)
        }
        if let httpVersion { configuration.httpVersion = httpVersion }
        return Session(configuration: configuration)
    }

    /// Runs `body` with a proxy started for it, and stops the proxy afterwards, whatever `body`
    /// does (its error is recorded as the test's issue).
    static func withProxy(
        _ program: LocalProxy.Program, username: String? = nil, password: String? = nil,
        allowingConnectTo connectPorts: [Int]? = nil, _ body: (LocalProxy) async throws -> Void
    ) async throws {
        let proxy = try await LocalProxy.start(
            program, username: username, password: password, allowingConnectTo: connectPorts)
        do {
            try await body(proxy)
        } catch {
            Issue.record(error)
        }
        await proxy.stop()
    }

    /// Runs `body` with an HTTPS proxy started for it — stunnel terminating TLS (with the trust
    /// test certificates' `good` leaf, for `localhost` and `127.0.0.1`) in front of tinyproxy —
    /// and stops both afterwards. Gives `body` the TLS front (its port is the proxy's). With `requiringClientCertificates`,
    /// the proxy takes only clients with a certificate of the client CA.
    static func withHTTPSProxy(
        _ certificates: TrustCertificates, requiringClientCertificates: Bool = false, username: String? = nil,
        password: String? = nil, _ body: (TLSFront) async throws -> Void
    ) async throws {
        try await withProxy(.tinyproxy, username: username, password: password) { proxy in
            let front = try await TLSFront.start(
                forwardingTo: proxy.port, certificate: certificates.goodChain, key: certificates.goodKey,
                clientCA: requiringClientCertificates ? certificates.clientCA : nil)
            do {
                try await body(front)
            } catch {
                Issue.record(error)
            }
            await front.stop()
        }
    }

    /// Checks that `request` fails with ``CurlewError/Kind/proxyFailure``, naming `proxy` and
    /// never the proxy password; returns the error for more checks.
    @discardableResult
    static func expectProxyFailure(
        _ request: DataRequest, naming proxy: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> CurlewError? {
        do {
            let data = try await request.data()
            Issue.record("expected proxyFailure, got \(data.count) bytes", sourceLocation: sourceLocation)
            return nil
        } catch {
            #expect(error.kind == .proxyFailure, "\(error)", sourceLocation: sourceLocation)
            #expect(error.description.contains(proxy), "\(error.description)", sourceLocation: sourceLocation)
            #expect(!error.description.contains(password), sourceLocation: sourceLocation)
            return error
        }
    }
}
