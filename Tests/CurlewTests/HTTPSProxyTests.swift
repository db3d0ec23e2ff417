@testable import Curlew
import Foundation
import HTTPTypes
import Logging
import Testing
import TestServer

/// HTTPS proxies — TLS to the proxy itself (stunnel in front of tinyproxy) — with a trust policy of
/// their own (`ProxyConfiguration.explicit(.https, …, trust:)`), end to end.
///
/// The proxy presents the trust test bed's `good` leaf, signed by the bed's CA; the origin is
/// the suite's nginx, with a CA of its own. So a policy for one never vouches for the other:
/// each test proves the proxy's policy governs the proxy, and the session's the origin.
@Suite(
    "HTTPS proxies: TLS to the proxy, trusted by its own policy",
    .enabled(if: NginxServer.isAvailable && TLSFront.isAvailable, "nginx or stunnel4 is not installed"),
    .nginx(fixedResponses: ["/via-https-proxy": "through the https proxy\n"]), .trustTestBed)
struct HTTPSProxyTests {
    /// A session through the HTTPS proxy on `port`, trusting it by `proxyTrust`, and the origins
    /// (nginx) by their own CA unless `originTrust` says otherwise.
    private func session(
        proxyPort port: Int, proxyTrust: TrustPolicy, originTrust: TrustPolicy? = nil,
        httpVersion: HTTPVersionPreference? = nil
    ) throws -> Session {
        let nginx = try NginxSuiteScope.server()
        return ProxyTesting.session(
            .explicit(.https, host: "127.0.0.1", port: port, trust: proxyTrust),
            originTrust: originTrust ?? .certificateAuthorities([.file(nginx.caCertificatePath)]), httpVersion: httpVersion)
    }

    /// Options that send a request through the HTTPS proxy at `port`, trusted by `trust`.
    private func through(_ port: Int, trust: TrustPolicy) -> RequestOptions {
        var options = RequestOptions()
        options.proxy = .explicit(.https, host: "127.0.0.1", port: port, trust: trust)
        return options
    }

    /// The proxy's certificates (the trust test bed's).
    private var proxyCertificates: TrustCertificates {
        get throws { try TrustTestBedScope.bed().certificates }
    }

    /// The pin of the proxy's key.
    private func proxyPin() throws -> String {
        "sha256//" + (try proxyCertificates.publicKeyDigest("good")).base64EncodedString()
    }

    /// Policies under which the proxy is trusted, by name (test arguments must be Sendable).
    private func acceptingPolicy(_ name: String) throws -> TrustPolicy {
        let authority = CertificateSource.file(try proxyCertificates.caCertificate)
        switch name {
        case "certificateAuthorities": return .certificateAuthorities([authority])
        case "systemTrustAdding": return .systemTrust(adding: [authority])
        case "publicKeysValidatingChain": return .publicKeys([try proxyPin()]).validatingChain(against: [authority])
        case "publicKeysWithoutChain": return .publicKeys([try proxyPin()], validateChain: false)
        case "minimumTLS13": return TrustPolicy.certificateAuthorities([authority]).minimumTLSVersion(.v1_3)
        default: throw TestServerError("no policy named \(name)")
        }
    }

    @Test(arguments: [
        "certificateAuthorities", "systemTrustAdding", "publicKeysValidatingChain", "publicKeysWithoutChain", "minimumTLS13",
    ])
    func aProxyTrustedByItsPolicyCarriesHTTPSAndHTTPRequests(_ policyName: String) async throws {
        let nginx = try NginxSuiteScope.server()
        let server = try await Fixtures.server()
        let policy = try acceptingPolicy(policyName)
        try await ProxyTesting.withHTTPSProxy(try proxyCertificates) { front in
            let port = front.port
            let session = try session(proxyPort: port, proxyTrust: policy)
            // HTTPS: a CONNECT tunnel inside the TLS to the proxy; the response is the origin's.
            let response = try await session.request(nginx.url("/via-https-proxy")).response
            #expect(response.head.status.code == 200, "\(response.head)")
            #expect(response.head.headerFields[.server]?.hasPrefix("nginx") == true, "\(response.head)")
            #expect(response.head.headerFields[ProxyTesting.proxyAgent] == nil, "\(response.head)")
            #expect(String(decoding: response.value, as: UTF8.self) == "through the https proxy\n")
            #expect(response.metrics.remotePort == port, "the connection is the proxy's: \(response.metrics)")
            // HTTP: the request itself goes to the proxy over TLS.
            let echo = try Fixtures.echo(try await session.request(server.url("/get?via=https-proxy")).validate().data())
            #expect(echo.headers["via"]?.contains("tinyproxy") == true, "\(echo.headers)")
            await session.shutdown()
        }
    }

    /// Policies under which the proxy is not trusted, by name.
    private func refusingPolicy(_ name: String) throws -> TrustPolicy {
        let nginx = try NginxSuiteScope.server()
        switch name {
        case "systemTrust": return .systemTrust
        case "theOriginsCA": return .certificateAuthorities([.file(nginx.caCertificatePath)])
        case "theOriginsPin": return .publicKeys([nginx.publicKeyPin], validateChain: false)
        case "aWrongPinOnAVerifiedChain":
            return .publicKeys([nginx.publicKeyPin]).validatingChain(against: [.file(try proxyCertificates.caCertificate)])
        default: throw TestServerError("no policy named \(name)")
        }
    }

    @Test(arguments: ["systemTrust", "theOriginsCA", "theOriginsPin", "aWrongPinOnAVerifiedChain"])
    func aProxyItsPolicyRefusesIsAProxyFailureAndNothingReachesTheOrigin(_ policyName: String) async throws {
        let nginx = try NginxSuiteScope.server()
        let server = try await Fixtures.server()
        let policy = try refusingPolicy(policyName)
        try await ProxyTesting.withHTTPSProxy(try proxyCertificates) { front in
            let port = front.port
            let session = try session(proxyPort: port, proxyTrust: policy)
            let proxyName = "https://127.0.0.1:\(port)"
            let tunnelled = await ProxyTesting.expectProxyFailure(session.request(nginx.url("/via-https-proxy")), naming: proxyName)
            let reason = tunnelled?.message ?? ""
            #expect(reason.contains("TLS with the proxy") || reason.contains("matches no pin"), "\(reason)")
            // A plain-HTTP request never reaches its origin through a proxy that failed its policy.
            let marker = "/refused-proxy-\(UUID().uuidString)"
            await ProxyTesting.expectProxyFailure(session.request(server.url(marker)), naming: proxyName)
            #expect(server.requestCount(path: marker) == 0)
            await session.shutdown()
        }
    }

    /// Credentials for an HTTPS proxy go inside its TLS; without them, its 407 is the proxy's.
    @Test func anHTTPSProxyTakesItsCredentialsOverItsOwnTLS() async throws {
        let nginx = try NginxSuiteScope.server()
        let certificates = try proxyCertificates
        let authorities = TrustPolicy.certificateAuthorities([.file(certificates.caCertificate)])
        try await ProxyTesting.withHTTPSProxy(certificates, username: "curlew", password: ProxyTesting.password) { front in
            let origins = TrustPolicy.certificateAuthorities([.file(nginx.caCertificatePath)])
            let good = ProxyTesting.session(
                .explicit(.https, host: "127.0.0.1", port: front.port, username: "curlew", password: ProxyTesting.password, trust: authorities),
                originTrust: origins)
            #expect(try await good.request(nginx.url("/via-https-proxy")).validate().string() == "through the https proxy\n")
            await good.shutdown()
            let anonymous = try session(proxyPort: front.port, proxyTrust: authorities)
            let error = await ProxyTesting.expectProxyFailure(
                anonymous.request(nginx.url("/via-https-proxy")), naming: "https://127.0.0.1:\(front.port)")
            #expect(error?.message.contains("(407)") == true, "\(String(describing: error))")
            await anonymous.shutdown()
        }
    }

    @Test func theOriginsTrustNeverVouchesForTheProxy() async throws {
        let nginx = try NginxSuiteScope.server()
        let certificates = try proxyCertificates
        try await ProxyTesting.withHTTPSProxy(certificates) { front in
            let port = front.port
            // The session trusts the proxy's CA for origins; the proxy keeps system trust.
            let both = TrustPolicy.certificateAuthorities([.file(certificates.caCertificate), .file(nginx.caCertificatePath)])
            let session = try session(proxyPort: port, proxyTrust: .systemTrust, originTrust: both)
            await ProxyTesting.expectProxyFailure(session.request(nginx.url("/via-https-proxy")), naming: "https://127.0.0.1:\(port)")
            await session.shutdown()
        }
    }

    @Test func theOriginsPoliciesAreCheckedOnTheOriginInsideTheProxysTLS() async throws {
        let nginx = try NginxSuiteScope.server()
        let certificates = try proxyCertificates
        try await ProxyTesting.withHTTPSProxy(certificates) { front in
            let port = front.port
            let proxyTrust = TrustPolicy.certificateAuthorities([.file(certificates.caCertificate)])
            // The origin's own key, pinned after the handshake: the check reads the origin's
            // connection, not the proxy's.
            let pinned = try session(
                proxyPort: port, proxyTrust: proxyTrust,
                originTrust: .publicKeys([nginx.publicKeyPin]).validatingChain(against: [.file(nginx.caCertificatePath)]))
            #expect(try await pinned.request(nginx.url("/via-https-proxy")).validate().string() == "through the https proxy\n")
            await pinned.shutdown()
            // The proxy's key does not stand for the origin.
            let proxysKey = try session(
                proxyPort: port, proxyTrust: proxyTrust, originTrust: .publicKeys([try proxyPin()], validateChain: false))
            let error = await failure(proxysKey.request(nginx.url("/via-https-proxy")))
            #expect(error?.kind == .untrustedServer, "\(String(describing: error))")
            #expect(error?.message.contains("localhost") == true, "\(String(describing: error))")
            await proxysKey.shutdown()
        }
    }

    @Test func aClientCertificateForTheProxyGoesToTheProxyOnly() async throws {
        let certificates = try proxyCertificates
        let bed = try TrustTestBedScope.bed()
        let authority = CertificateSource.file(certificates.caCertificate)
        let client = ClientCertificate.pem(certificateFile: certificates.clientCertificate, keyFile: certificates.clientKey)
        try await ProxyTesting.withHTTPSProxy(certificates, requiringClientCertificates: true) { front in
            let port = front.port
            let name = "https://127.0.0.1:\(port)"
            let without = try session(proxyPort: port, proxyTrust: .certificateAuthorities([authority]), originTrust: .certificateAuthorities([authority]))
            // TLS 1.3 refuses the missing certificate after the client's side of the handshake:
            // libcurl reads the alert, or finds the connection reset, before the tunnel is open.
            let refused = await ProxyTesting.expectProxyFailure(without.request(bed.url(.good)), naming: name)
            let reason = refused?.message ?? ""
            #expect(reason.contains("TLS with the proxy") || reason.contains("could not open a tunnel"), "\(reason)")
            await without.shutdown()

            let with = try session(
                proxyPort: port, proxyTrust: TrustPolicy.certificateAuthorities([authority]).clientCertificate(client),
                originTrust: .certificateAuthorities([authority]))
            #expect(try await with.request(bed.url(.good)).validate().string() == "ok\n")
            // The origin that asks for a client certificate gets none: the proxy's is the proxy's.
            let origin = await failure(with.request(bed.url(.mutualTLS)).validate())
            #expect(origin?.status?.code == 400, "\(String(describing: origin))")
            await with.shutdown()
        }
    }

    /// No evaluation at all takes any proxy, and says so once per session and proxy.
    @Test func anUnevaluatedProxyIsTakenAndLoggedOnce() async throws {
        let nginx = try NginxSuiteScope.server()
        try await ProxyTesting.withHTTPSProxy(try proxyCertificates) { front in
            let messages = Recorder<(Logger.Level, String)>()
            var configuration = SessionConfiguration()
            let insecure = TrustPolicy.insecureNoEvaluation(reason: "lab proxy with a throwaway certificate")
            configuration.proxy = .explicit(.https, host: "127.0.0.1", port: front.port, trust: insecure)
            configuration.trust = TrustConfiguration(default: .certificateAuthorities([.file(nginx.caCertificatePath)]))
            configuration.logger = Logger(label: "test") { _ in CapturingLogHandler(messages: messages) }
            let session = Session(configuration: configuration)
            for _ in 0..<2 {
                _ = try await session.request(nginx.url("/via-https-proxy")).validate().data()
                _ = try await session.request(nginx.url("/via-https-proxy"), options: through(front.port, trust: insecure)).validate().data()
            }
            let warnings = messages.all.filter { $0.0 == .warning && $0.1.contains("OFF for the proxy") }
            #expect(warnings.count == 1, "\(messages.all)")
            #expect(warnings.first?.1.contains("https://127.0.0.1:\(front.port): lab proxy with a throwaway certificate") == true)
            await session.shutdown()
        }
    }

    @Test func proxyTrustThatCannotWorkIsAClearError() async throws {
        let server = try await Fixtures.server()
        let nginx = try NginxSuiteScope.server()
        let cases: [(ProxyConfiguration, String)] = [
            (.explicit(.https, host: "127.0.0.1", port: 9, trust: .custom { _ in .trust }), "custom evaluation"),
            (.explicit(.https, host: "127.0.0.1", port: 9, trust: .fingerprints([.sha256(String(repeating: "AB", count: 32))])), "fingerprints"),
            (.explicit(.https, host: "127.0.0.1", port: 9, trust: .certificates([.file(nginx.caCertificatePath)])), "pinned certificates"),
            (.explicit(.http, host: "127.0.0.1", port: 9, trust: .certificateAuthorities([.file(nginx.caCertificatePath)])), "not an https proxy"),
            (.explicit(.https, host: "127.0.0.1", port: 9, trust: .certificateAuthorities([.file("/nonexistent/proxy-ca.pem")])), "/nonexistent/proxy-ca.pem"),
            (.explicit(.https, host: "127.0.0.1", port: 9, trust: .publicKeys(["sha1//abc"])), "sha256//"),
        ]
        for (proxy, phrase) in cases {
            // As the session's proxy and as a request's own.
            let session = ProxyTesting.session(proxy)
            var options = RequestOptions()
            options.proxy = proxy
            for error in [await failure(session.request(server.url("/get"))), await failure(ProxyTests.direct.request(server.url("/get"), options: options))] {
                #expect(error?.kind == .invalidRequest, "\(phrase): \(String(describing: error))")
                #expect(error?.message.contains(phrase) == true, "\(phrase): \(String(describing: error))")
            }
            await session.shutdown()
        }
    }

    /// `cURLDescription()` gives the proxy's trust as curl's `--proxy-*` flags, never a
    /// passphrase, and the command it prints goes through the same proxy.
    @Test func cURLDescriptionCarriesTheProxysTrustWithoutItsSecrets() async throws {
        let nginx = try NginxSuiteScope.server()
        let certificates = try proxyCertificates
        let authorities = TrustPolicy.certificateAuthorities([.file(certificates.caCertificate)])
        try await ProxyTesting.withHTTPSProxy(certificates, requiringClientCertificates: true) { front in
            let client = ClientCertificate.pem(certificateFile: certificates.clientCertificate, keyFile: certificates.clientKey)
            let session = try session(proxyPort: front.port, proxyTrust: authorities.clientCertificate(client))
            let command = session.request(nginx.url("/via-https-proxy")).cURLDescription()
            #expect(command.contains("-x 'https://127.0.0.1:\(front.port)' --proxy-cacert '\(certificates.caCertificate)'"), "\(command)")
            #expect(command.contains("--proxy-cert '\(certificates.clientCertificate)'"), "\(command)")
            #expect(command.contains("--cacert '\(nginx.caCertificatePath)'"), "\(command)")
            let shell = try await ChildProcess.run("/bin/sh", ["-c", command + " --silent --show-error"])
            #expect(shell.status == 0, "\(shell.errorText)")
            #expect(shell.text == "through the https proxy\n", "\(shell.text)")
            await session.shutdown()

            let encrypted = ClientCertificate.pem(
                certificateFile: certificates.clientCertificate, keyFile: certificates.clientKeyEncrypted,
                passphrase: TrustCertificates.clientPassphrase)
            let pinned = try self.session(
                proxyPort: front.port,
                proxyTrust: TrustPolicy.publicKeys([try proxyPin()]).validatingChain(against: [.file(certificates.caCertificate)])
                    .clientCertificate(encrypted))
            let printed = pinned.request(nginx.url("/via-https-proxy")).cURLDescription()
            #expect(printed.contains("--proxy-pinnedpubkey '\(try proxyPin())'") && printed.contains("--proxy-pass '***'"), "\(printed)")
            #expect(!printed.contains(TrustCertificates.clientPassphrase), "\(printed)")
            await pinned.shutdown()
        }
    }

    // MARK: Pooled handles, connections and TLS sessions

    /// One handle serves these requests in turn, and the trusted connection stays open: the
    /// session's system trust must still refuse the proxy after a request trusted it.
    @Test func aRequestsProxyTrustNeverStaysOnThePooledHandleOrItsConnection() async throws {
        let nginx = try NginxSuiteScope.server()
        let certificates = try proxyCertificates
        try await ProxyTesting.withHTTPSProxy(certificates) { front in
            let session = try session(proxyPort: front.port, proxyTrust: .systemTrust)
            let trusting = through(front.port, trust: .certificateAuthorities([.file(certificates.caCertificate)]))
            for _ in 0..<2 {
                let body = try await session.request(nginx.url("/via-https-proxy"), options: trusting).validate().string()
                #expect(body == "through the https proxy\n")
                await ProxyTesting.expectProxyFailure(
                    session.request(nginx.url("/via-https-proxy")), naming: "https://127.0.0.1:\(front.port)")
            }
            await session.shutdown()
        }
    }

    /// The proxy asks for a client certificate: a request's certificate, and a request's pin,
    /// are gone from the handle (and its connection unused) for the next request.
    @Test func aProxyClientCertificateOrPinNeverStaysOnThePooledHandle() async throws {
        let nginx = try NginxSuiteScope.server()
        let certificates = try proxyCertificates
        let authorities = TrustPolicy.certificateAuthorities([.file(certificates.caCertificate)])
        let client = ClientCertificate.pem(certificateFile: certificates.clientCertificate, keyFile: certificates.clientKey)
        try await ProxyTesting.withHTTPSProxy(certificates, requiringClientCertificates: true) { front in
            let name = "https://127.0.0.1:\(front.port)"
            let session = try session(proxyPort: front.port, proxyTrust: authorities)
            let withCertificate = through(front.port, trust: authorities.clientCertificate(client))
            let wrongPin = through(
                front.port,
                trust: TrustPolicy.publicKeys([nginx.publicKeyPin]).validatingChain(against: [.file(certificates.caCertificate)])
                    .clientCertificate(client))
            let url = nginx.url("/via-https-proxy")
            #expect(try await session.request(url, options: withCertificate).validate().string() == "through the https proxy\n")
            await ProxyTesting.expectProxyFailure(session.request(url), naming: name)
            let pinned = await ProxyTesting.expectProxyFailure(session.request(url, options: wrongPin), naming: name)
            #expect(pinned?.message.contains("matches no pin") == true, "\(String(describing: pinned))")
            #expect(try await session.request(url, options: withCertificate).validate().string() == "through the https proxy\n")
            await session.shutdown()
        }
    }

    /// libcurl caches the proxy's TLS session for new connections of the session: under the
    /// policy that made it, it is resumed (stunnel logs it); under another, a request gets a
    /// full handshake — and fails, where a resumed session would have skipped the check.
    @Test func aProxysTLSSessionIsResumedOnlyUnderThePolicyThatMadeIt() async throws {
        let nginx = try NginxSuiteScope.server()
        let certificates = try proxyCertificates
        try await ProxyTesting.withHTTPSProxy(certificates) { front in
            // HTTP/1.1 and `Connection: close`: nginx ends each tunnel, so each request needs a
            // new connection, with a TLS handshake to the proxy.
            let session = try session(
                proxyPort: front.port, proxyTrust: .certificateAuthorities([.file(certificates.caCertificate)]),
                httpVersion: .http1_1)
            let close: HTTPFields = [.connection: "close"]
            let url = nginx.url("/via-https-proxy")
            _ = try await session.request(url, headers: close).validate().data()
            _ = try await session.request(url, headers: close).validate().data()
            let made = try await front.handshakes(reaching: 2)
            #expect(made.new == 1 && made.resumed == 1, "the control: a resumed session under the same policy, \(made)")
            for policy in [
                TrustPolicy.certificateAuthorities([.file(nginx.caCertificatePath)]),
                .publicKeys([nginx.publicKeyPin]).validatingChain(against: [.file(certificates.caCertificate)]),
            ] {
                await ProxyTesting.expectProxyFailure(
                    session.request(url, headers: close, options: through(front.port, trust: policy)),
                    naming: "https://127.0.0.1:\(front.port)")
            }
            #expect(front.handshakes().resumed == 1, "\(front.handshakes())")
            await session.shutdown()
        }
    }
}
