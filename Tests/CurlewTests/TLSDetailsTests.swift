import Curlew
import Foundation
import Testing
import TestServer

/// What a response says of its TLS connection, and the TLS parameters a trust policy narrows,
/// checked against what nginx negotiated.
@Suite("TLS details and parameters against nginx", .enabled(if: NginxServer.isAvailable, "nginx is not installed"), .nginx())
struct TLSDetailsTests {
    private func session(_ nginx: NginxServer, _ adjust: (inout TrustPolicy) -> Void = { _ in }, configure: (inout SessionConfiguration) -> Void = { _ in }) -> Session {
        var policy = TrustPolicy.certificateAuthorities([.file(nginx.caCertificatePath)])
        adjust(&policy)
        var configuration = SessionConfiguration()
        configuration.trust = TrustConfiguration(default: policy)
        configure(&configuration)
        return Session(configuration: configuration)
    }

    private static func der(ofPEMFile path: String) throws -> Data {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let body = text.components(separatedBy: "\n").filter { !$0.hasPrefix("-----") }.joined()
        return try #require(Data(base64Encoded: body))
    }

    @Test func anHTTPSResponseSaysWhatItsConnectionWas() async throws {
        let nginx = try NginxSuiteScope.server()
        let session = session(nginx)
        let response = try await session.request(nginx.url("/small")).validate().response
        let tls = try #require(response.metrics.tls)
        #expect(tls.protocolVersion == "TLSv1.3", "\(tls)")
        #expect(tls.cipherSuite.hasPrefix("TLS_"), "\(tls)")
        #expect(tls.applicationProtocol == "h2", "nginx offers h2 over ALPN")
        #expect(tls.keyExchangeGroup != nil)
        #expect(tls.peerCertificates.isEmpty, "certificates only when asked for")

        var options = RequestOptions()
        options.httpVersion = .http1_1
        let http1 = try await session.request(nginx.url("/small"), options: options).validate().response
        #expect(http1.metrics.tls?.applicationProtocol == "http/1.1")
        await session.shutdown()
    }

    @Test func thePeersCertificatesComeWhenAskedFor() async throws {
        let nginx = try NginxSuiteScope.server()
        let session = session(nginx) { _ in } configure: { $0.capturesPeerCertificates = true }
        let response = try await session.request(nginx.url("/small")).validate().response
        let chain = try #require(response.metrics.tls?.peerCertificates)
        let leaf = try #require(chain.first)
        #expect(leaf.der == (try Self.der(ofPEMFile: nginx.certificates.certificatePath)), "the leaf nginx serves")
        #expect(leaf.subject.contains("CN=localhost"), "\(leaf.subject)")
        #expect(leaf.notValidBefore < Date() && Date() < leaf.notValidAfter)
        #expect(leaf.sha256.count == 32 * 3 - 1)
        if chain.count > 1 { #expect(leaf.issuer == chain[1].subject) }
        await session.shutdown()
    }

    @Test func aCustomEvaluationSeesTheConnection() async throws {
        let nginx = try NginxSuiteScope.server()
        let seen = Recorder<TLSConnectionDetails>()
        var configuration = SessionConfiguration()
        configuration.trust = TrustConfiguration(default: TrustPolicy.custom { trust in
            if let connection = trust.connection { seen.append(connection) }
            return .trust
        }.validatingChain(against: [.file(nginx.caCertificatePath)]))
        let session = Session(configuration: configuration)
        _ = try await session.request(nginx.url("/small")).validate().string()
        let connection = try #require(seen.all.first)
        #expect(connection.protocolVersion == "TLSv1.3")
        #expect(connection.peerCertificates.first?.subject.contains("CN=localhost") == true)
        await session.shutdown()
    }

    /// The suite and group nginx used are the only ones offered, for two different choices
    /// (so neither is OpenSSL's default by chance).
    @Test(arguments: [("TLS_AES_128_GCM_SHA256", "P-384", "secp384r1"), ("TLS_CHACHA20_POLY1305_SHA256", "P-256", "secp256r1")])
    func cipherSuitesAndGroupsAreTheOnesOffered(_ suite: String, _ group: String, _ openSSLGroup: String) async throws {
        let nginx = try NginxSuiteScope.server()
        var parameters = TLSParameters()
        parameters.tls13CipherSuites = [suite]
        parameters.keyExchangeGroups = [group]
        let session = session(nginx) { $0 = $0.tlsParameters(parameters) }
        let request = session.request(nginx.url("/small"))
        #expect(request.cURLDescription().contains("--tls13-ciphers '\(suite)' --curves '\(group)'"))
        let tls = try #require(try await request.validate().response.metrics.tls)
        #expect(tls.cipherSuite == suite)
        #expect(tls.keyExchangeGroup == openSSLGroup)
        await session.shutdown()
    }

    /// nginx staples no OCSP response: requiring one fails the handshake, as curl's `--cert-status` does.
    @Test func requiringOCSPStaplingFailsWithoutAStapledResponse() async throws {
        let nginx = try NginxSuiteScope.server()
        var parameters = TLSParameters()
        parameters.requiresOCSPStapling = true
        let session = session(nginx) { $0 = $0.tlsParameters(parameters) }
        let error = await #expect(throws: CurlewError.self) { try await session.request(nginx.url("/small")).response }
        #expect(error?.kind == .tlsFailure, "\(String(describing: error))")
        await session.shutdown()
    }

    @Test(arguments: [["bad:name"], [], ["with space"], [""], ["a,b"]])
    func badNamesFailBeforeAnyConnection(_ names: [String]) async throws {
        var parameters = TLSParameters()
        parameters.keyExchangeGroups = names
        var configuration = SessionConfiguration()
        configuration.trust = TrustConfiguration(default: TrustPolicy.systemTrust.tlsParameters(parameters))
        let session = Session(configuration: configuration)
        // A closed port: a request that got as far as connecting would fail otherwise.
        let error = await #expect(throws: CurlewError.self) {
            try await session.request(#require(URL(string: "https://127.0.0.1:9/"))).response
        }
        #expect(error?.kind == .invalidRequest, "\(String(describing: error))")
        await session.shutdown()
    }

    @Test func plainHTTPHasNoTLSDetails() async throws {
        let server = try await TestServer.start()
        let session = Session()
        let response = try await session.request(server.url("/get")).validate().response
        #expect(response.metrics.tls == nil)
        await session.shutdown()
        try await server.shutdown()
    }
}
