@testable import Curlew
import Foundation
import Testing
import TestServer

/// Host pattern matching and bad trust configurations, without a TLS server: a configuration
/// that cannot be used fails each request before any connection, with a message that names
/// the problem, and never falls back to less checking.
@Suite("Trust configuration: host patterns and bad settings")
struct TrustConfigurationTests {
    private let pin = "sha256//" + Data(repeating: 1, count: 32).base64EncodedString()

    /// The description of the policy chosen for `host`: tells the patterns apart.
    private func chosen(_ configuration: TrustConfiguration, _ host: String) -> String {
        configuration.policy(forHost: host).pattern.map { "\($0)" } ?? "default"
    }

    @Test func theMostSpecificPatternWins() {
        let configuration = TrustConfiguration(hosts: [
            .exact("api.example.com"): .systemTrust,
            .wildcard("*.example.com"): .systemTrust,
            .domainAndSubdomains("example.com"): .systemTrust,
            .domainAndSubdomains("internal.example.com"): .systemTrust,
            .exact("::1"): .systemTrust,
        ])
        #expect(chosen(configuration, "api.example.com") == "api.example.com")
        #expect(chosen(configuration, "API.Example.COM.") == "api.example.com")
        #expect(chosen(configuration, "www.example.com") == "*.example.com")
        #expect(chosen(configuration, "example.com") == "example.com and its subdomains")
        // One label only for a wildcard; deeper hosts fall to the longest matching domain.
        #expect(chosen(configuration, "a.b.example.com") == "example.com and its subdomains")
        #expect(chosen(configuration, "x.internal.example.com") == "internal.example.com and its subdomains")
        // A wildcard beats a domain pattern even when the domain is longer.
        #expect(chosen(configuration, "internal.example.com") == "*.example.com")
        // Suffixes match on label boundaries only.
        #expect(chosen(configuration, "notexample.com") == "default")
        #expect(chosen(configuration, "example.com.evil.test") == "default")
        #expect(chosen(configuration, "[::1]") == "::1")
        #expect(chosen(configuration, "other.test") == "default")
    }

    private func failure(_ trust: TrustConfiguration) async -> CurlewError? {
        let session = TrustTesting.session(trust)
        defer { Task { await session.shutdown() } }
        // Nothing listens there: a configuration error must come before any connection.
        let error = await TrustTesting.failure(session, URL(string: "https://127.0.0.1:9/")!)
        return error
    }

    @Test func badConfigurationsAreClearErrors() async throws {
        let missing = "/nonexistent/\(UUID().uuidString).pem"
        let keyOnly = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-key-\(UUID().uuidString).pem")
        try "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".write(to: keyOnly, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: keyOnly) }
        let emptyDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: emptyDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: emptyDirectory) }

        let cases: [(TrustPolicy, String)] = [
            (.publicKeys(["sha256//not base64!"]), "sha256// followed by the base64 of 32 bytes"),
            (.publicKeys(["md5//AAAA"]), "must have the form sha256//BASE64"),
            (.publicKeys([]), "no public key is pinned"),
            (.certificateAuthorities([.file(missing)]), "cannot read the certificate file \(missing)"),
            (.certificateAuthorities([.file(keyOnly.path)]), "holds no PEM certificate"),
            (.certificateAuthorities([.pem("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")]), "not an X.509 certificate"),
            (.certificateAuthorities([.pem("-----BEGIN CERTIFICATE-----\nAAAA")]), "without its END line"),
            (.certificateAuthorities([.der(Data([0x30, 0x03, 1, 2, 3]))]), "not an X.509 certificate"),
            (.certificateAuthorities([.directory(emptyDirectory.path)]), "holds no .pem, .crt or .cer"),
            (.certificateAuthorities([]), "no certificate authority is given"),
            (.certificates([.file(missing)]), "cannot read"),
            (.fingerprints([.sha256("AB:CD")]), "has 4 hex digits, not 64"),
            (.fingerprints([.sha1(String(repeating: "zz", count: 20))]), "not a hex digit"),
            (.fingerprints([.publicKey("sha256//AAAA")]), "base64 of 32 bytes"),
            (.publicKeys([pin], validateChain: false).validatingChain(against: [.file(missing)]), "validateChain: true"),
            (TrustPolicy.systemTrust.clientCertificate(.pem(certificateFile: missing)), "cannot read the client certificate"),
            (TrustPolicy.systemTrust.clientCertificate(.pkcs12(data: Data())), "data is empty"),
        ]
        for (policy, expected) in cases {
            for trust in [TrustConfiguration(default: policy), TrustConfiguration(hosts: [.exact("other.test"): policy])] {
                let error = await failure(trust)
                #expect(error?.kind == .invalidRequest, "\(policy): \(String(describing: error))")
                #expect(error?.message.contains(expected) == true, "\(policy): \(String(describing: error?.message))")
            }
        }
    }

    /// Policies govern TLS connections: plain HTTP to a pinned host goes through (the
    /// after-handshake check has nothing to look at and must not fail the request).
    @Test func plainHTTPIsNotSubjectToTrustPolicies() async throws {
        let server = try await Fixtures.server()
        for trust in [
            TrustConfiguration(default: .publicKeys([pin], validateChain: false)),
            TrustConfiguration(hosts: [.exact("127.0.0.1"): .custom { _ in .reject(reason: "never") }]),
        ] {
            let session = TrustTesting.session(trust)
            let data = try await session.request(server.url("/bytes/10")).validate().data()
            #expect(data.count == 10)
            await session.shutdown()
        }
    }

    @Test func badHostPatternsAreClearErrors() async {
        for (pattern, expected) in [
            (HostPattern.wildcard("example.com"), "must start with '*.'"),
            (.wildcard("*.com"), "at least two labels"),
            (.exact(""), "the host is empty"),
            (.domainAndSubdomains("exa mple.com"), "characters no host name has"),
        ] {
            let error = await failure(TrustConfiguration(hosts: [pattern: .systemTrust]))
            #expect(error?.kind == .invalidRequest)
            #expect(error?.message.contains(expected) == true, "\(pattern): \(String(describing: error?.message))")
        }
    }
}
