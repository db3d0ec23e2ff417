import Curlew
import Foundation
import Testing
import TestServer

/// Client certificates against nginx with `ssl_verify_client on`: every form Curlew takes
/// gets in; none, a stranger's, or a wrong passphrase gets a clear error.
@Suite("Mutual TLS against nginx", .enabled(if: NginxServer.isAvailable, "nginx is not installed"), .trustTestBed)
struct MutualTLSTests {
    private func session(_ certificate: ClientCertificate?, for pattern: HostPattern? = nil) throws -> Session {
        let bed = try TrustTestBedScope.bed()
        let authorities = TrustPolicy.certificateAuthorities([.file(bed.certificates.caCertificate)])
        if let pattern {
            return TrustTesting.session(TrustConfiguration(default: authorities, hosts: [pattern: authorities.clientCertificate(certificate)]))
        }
        return TrustTesting.session(default: authorities.clientCertificate(certificate))
    }

    @Test(arguments: ["pem", "pem-encrypted-key", "der", "pem-blobs", "pkcs12-file", "pkcs12-data"])
    func everyFormAuthenticates(_ form: String) async throws {
        let bed = try TrustTestBedScope.bed()
        let c = bed.certificates
        let passphrase = TrustCertificates.clientPassphrase
        let certificate: ClientCertificate
        switch form {
        case "pem": certificate = .pem(certificateFile: c.clientCertificate, keyFile: c.clientKey)
        case "pem-encrypted-key": certificate = .pem(certificateFile: c.clientCertificate, keyFile: c.clientKeyEncrypted, passphrase: passphrase)
        case "der": certificate = .der(certificateFile: c.clientCertificateDER, keyFile: c.clientKeyDER)
        case "pem-blobs":
            certificate = .pem(
                certificate: try Data(contentsOf: URL(fileURLWithPath: c.clientCertificate)),
                key: try Data(contentsOf: URL(fileURLWithPath: c.clientKeyEncrypted)), passphrase: passphrase)
        case "pkcs12-file": certificate = .pkcs12(file: c.clientPKCS12, passphrase: passphrase)
        default: certificate = .pkcs12(data: try Data(contentsOf: URL(fileURLWithPath: c.clientPKCS12)), passphrase: passphrase)
        }
        let session = try session(certificate)
        let body = try await TrustTesting.text(session, bed.url(.mutualTLS))
        #expect(body == "ok CN=Curlew client\n", "\(form): \(body)")
        await session.shutdown()
    }

    @Test func theSessionsClientCertificateIsPresentedToHostsWithoutAPolicyOfTheirOwn() async throws {
        let bed = try TrustTestBedScope.bed()
        let c = bed.certificates
        let authorities = TrustPolicy.certificateAuthorities([.file(c.caCertificate)])
        var configuration = SessionConfiguration()
        configuration.trust = TrustConfiguration(default: authorities)
        configuration.clientCertificate = .pem(certificateFile: c.clientCertificate, keyFile: c.clientKey)
        #expect(configuration.trust.defaultPolicy.clientCertificate != nil)
        let session = Session(configuration: configuration)
        #expect(try await TrustTesting.text(session, bed.url(.mutualTLS)) == "ok CN=Curlew client\n")
        await session.shutdown()
        // A host with a policy of its own presents that policy's certificate: here none.
        let host = try #require(bed.url(.mutualTLS).host)
        configuration.trust.hosts = [.exact(host): authorities]
        let own = Session(configuration: configuration)
        let error = try #require(await TrustTesting.failure(own, bed.url(.mutualTLS)))
        #expect(error.status?.code == 400, "\(error)")
        await own.shutdown()
    }

    @Test func noOrAStrangersCertificateIsRefusedByTheServer() async throws {
        let bed = try TrustTestBedScope.bed()
        let c = bed.certificates
        for certificate in [nil, ClientCertificate.pem(certificateFile: c.strangerCertificate, keyFile: c.strangerKey)] {
            let session = try session(certificate)
            let error = try #require(await TrustTesting.failure(session, bed.url(.mutualTLS)))
            // nginx completes the handshake and answers 400 with its reason.
            #expect(error.kind == .unacceptableStatus, "\(error)")
            #expect(error.status?.code == 400)
            #expect(error.responseBodyText?.contains("SSL certificate") == true, "\(error.responseBodyText ?? "")")
            await session.shutdown()
        }
    }

    @Test func aWrongPassphraseIsATLSFailureThatDoesNotShowIt() async throws {
        let bed = try TrustTestBedScope.bed()
        let c = bed.certificates
        for certificate in [
            ClientCertificate.pem(certificateFile: c.clientCertificate, keyFile: c.clientKeyEncrypted, passphrase: "wr0ng-pass"),
            .pkcs12(file: c.clientPKCS12, passphrase: "wr0ng-pass"),
        ] {
            let session = try session(certificate)
            let error = try #require(await TrustTesting.failure(session, bed.url(.mutualTLS)))
            #expect(error.kind == .tlsFailure, "\(error)")
            #expect(error.curlCode == 58, "\(error)")
            #expect(!"\(error)".contains("wr0ng-pass"))
            #expect(!certificate.description.contains("wr0ng-pass"))
            await session.shutdown()
        }
    }

    @Test func theCertificateGoesOnlyToItsHosts() async throws {
        let bed = try TrustTestBedScope.bed()
        let c = bed.certificates
        let session = try session(.pem(certificateFile: c.clientCertificate, keyFile: c.clientKey), for: .exact("127.0.0.1"))
        #expect(try await TrustTesting.text(session, bed.url(.mutualTLS, host: "127.0.0.1")) == "ok CN=Curlew client\n")
        // localhost gets the default policy, without a client certificate, in either order.
        let error = try #require(await TrustTesting.failure(session, bed.url(.mutualTLS)))
        #expect(error.status?.code == 400)
        #expect(try await TrustTesting.text(session, bed.url(.mutualTLS, host: "127.0.0.1")) == "ok CN=Curlew client\n")
        await session.shutdown()
    }
}
