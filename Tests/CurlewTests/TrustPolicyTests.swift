import Curlew
import Foundation
import Logging
import Testing
import TestServer

/// Every trust policy kind against nginx servers presenting a good, an expired, a wrong-host
/// and a self-signed certificate made for the run. Each rejection is checked to have happened
/// before the request was written: nginx's access log never shows its marker path.
@Suite("Trust policies against nginx", .enabled(if: NginxServer.isAvailable, "nginx is not installed"), .trustTestBed)
struct TrustPolicyTests: TrustTestBedChecks {
    @Test func systemTrustRejectsAPrivateCA() async throws {
        let bed = try TrustTestBedScope.bed()
        let session = TrustTesting.session(default: .systemTrust)
        let error = try await expectRejected(session, bed, .good, kind: .tlsFailure)
        #expect(error.curlCode == 60)
        await session.shutdown()
    }

    @Test(arguments: ["file", "directory", "pem", "der"])
    func onlyTheGivenCertificateAuthorities(_ form: String) async throws {
        let bed = try TrustTestBedScope.bed()
        let certificates = bed.certificates
        let source: CertificateSource
        switch form {
        case "file": source = .file(certificates.caCertificate)
        case "directory":
            // A directory holding only the CA (the test bed's directory holds other certificates).
            let directory = bed.prefixDirectory.appendingPathComponent("ca-only-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: certificates.caCertificate, toPath: directory.appendingPathComponent("ca.crt").path)
            source = .directory(directory.path)
        case "pem": source = .pem(try String(contentsOfFile: certificates.caCertificate, encoding: .utf8))
        default:
            let pem = try String(contentsOfFile: certificates.caCertificate, encoding: .utf8)
            let base64 = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
            source = .der(try #require(Data(base64Encoded: base64)))
        }
        let session = TrustTesting.session(default: .certificateAuthorities([source]))
        try await expectAccepted(session, bed, .good)
        try await expectAccepted(session, bed, .good, host: "127.0.0.1")
        for server in [Server.expired, .wrongHost, .selfSigned] {
            let error = try await expectRejected(session, bed, server, kind: .tlsFailure)
            #expect([60, 51].contains(error.curlCode), "\(server): \(error)")
        }
        await session.shutdown()
    }

    @Test func systemTrustWithAnAddedAuthority() async throws {
        let bed = try TrustTestBedScope.bed()
        let session = TrustTesting.session(default: .systemTrust(adding: [.file(bed.certificates.caCertificate)]))
        try await expectAccepted(session, bed, .good)
        _ = try await expectRejected(session, bed, .selfSigned, kind: .tlsFailure)
        await session.shutdown()
    }

    @Test func pinnedPublicKeys() async throws {
        let bed = try TrustTestBedScope.bed()
        let certificates = bed.certificates
        let goodPin = "sha256//" + (try certificates.publicKeyDigest("good")).base64EncodedString()
        let selfSignedPin = "sha256//" + (try certificates.publicKeyDigest("selfsigned")).base64EncodedString()

        // Without chain validation the leaf's key is the identity: a self-signed server works.
        let selfSigned = TrustTesting.session(default: .publicKeys([selfSignedPin], validateChain: false))
        try await expectAccepted(selfSigned, bed, .selfSigned)
        let error = try await expectRejected(selfSigned, bed, .good, kind: .untrustedServer)
        // The message is enough to fix the pin: host, policy, and the key and leaf seen.
        #expect(error.message.contains("localhost"))
        #expect(error.message.contains("pinned public key"))
        #expect(error.message.contains(goodPin), "\(error.message)")
        #expect(error.message.contains("CN = localhost") || error.message.contains("CN=localhost"), "\(error.message)")
        #expect(error.message.contains("Curlew Trust Test CA"), "\(error.message)")
        #expect(error.message.contains(try certificates.fingerprint("good", "sha256")), "\(error.message)")
        await selfSigned.shutdown()

        // With chain validation (against the test CA), the chain must verify too.
        let validated = TrustTesting.session(
            default: .publicKeys([goodPin]).validatingChain(against: [.file(certificates.caCertificate)]))
        try await expectAccepted(validated, bed, .good)
        _ = try await expectRejected(validated, bed, .expired, kind: .tlsFailure)
        await validated.shutdown()
    }

    @Test func pinnedCertificates() async throws {
        let bed = try TrustTestBedScope.bed()
        let certificates = bed.certificates
        // A self-signed leaf pinned by its own certificate, without chain validation.
        let selfSigned = TrustTesting.session(default: .certificates([.file(certificates.selfSigned)], validateChain: false))
        try await expectAccepted(selfSigned, bed, .selfSigned)
        _ = try await expectRejected(selfSigned, bed, .good, kind: .untrustedServer)
        await selfSigned.shutdown()

        // The leaf as DER.
        let der = TrustTesting.session(
            default: .certificates([.der(try Data(contentsOf: URL(fileURLWithPath: certificates.goodLeafDER)))], validateChain: false))
        try await expectAccepted(der, bed, .good)
        await der.shutdown()

        // With chain validation, any certificate of the verified chain may be pinned: the CA.
        let caPinned = TrustTesting.session(
            default: .certificates([.file(certificates.caCertificate)]).validatingChain(against: [.file(certificates.caCertificate)]))
        try await expectAccepted(caPinned, bed, .good)
        await caPinned.shutdown()

        // Without it, only the leaf counts: the CA certificate the server also sends proves
        // nothing (anyone can send it), so pinning it accepts no server.
        let unvalidatedCA = TrustTesting.session(default: .certificates([.file(certificates.caCertificate)], validateChain: false))
        let error = try await expectRejected(unvalidatedCA, bed, .good, kind: .untrustedServer)
        #expect(error.message.contains("leaf certificate"), "\(error.message)")
        await unvalidatedCA.shutdown()
    }

    @Test func fingerprintsInThePastedForms() async throws {
        let bed = try TrustTestBedScope.bed()
        let certificates = bed.certificates
        let sha256 = try certificates.fingerprint("good", "sha256")
        let sha1 = try certificates.fingerprint("good", "sha1")
        let keyHex = (try certificates.publicKeyDigest("good")).map { String(format: "%02x", $0) }.joined()
        #expect(sha256.count == 95 && sha1.count == 59)
        let forms: [CertificateFingerprint] = [
            .sha256(sha256),
            .sha256(sha256.replacingOccurrences(of: ":", with: "").lowercased()),
            .sha1(sha1),
            .sha1(sha1.lowercased()),
            .publicKey(keyHex),
            .publicKey(keyHex.uppercased()),
        ]
        for fingerprint in forms {
            let session = TrustTesting.session(default: .fingerprints([fingerprint], validateChain: false))
            try await expectAccepted(session, bed, .good)
            await session.shutdown()
        }
        // Another certificate's fingerprint: rejected, and the message shows the right one.
        let other = try certificates.fingerprint("selfsigned", "sha256")
        let session = TrustTesting.session(default: .fingerprints([.sha256(other)], validateChain: false))
        let error = try await expectRejected(session, bed, .good, kind: .untrustedServer)
        #expect(error.message.contains(sha256), "\(error.message)")
        await session.shutdown()
        // With chain validation (system trust), the test CA's chain fails first.
        let validated = TrustTesting.session(default: .fingerprints([.sha256(sha256)]))
        _ = try await expectRejected(validated, bed, .good, kind: .tlsFailure)
        await validated.shutdown()
    }

    @Test func customEvaluationSeesTheChainOnEveryRequest() async throws {
        let bed = try TrustTestBedScope.bed()
        let leaf = try Data(contentsOf: URL(fileURLWithPath: bed.certificates.goodLeafDER))
        let seen = Recorder<ServerTrust>()
        let accepting = TrustTesting.session(default: .custom(validateChain: false) { trust in
            seen.append(trust)
            return trust.certificates.first == leaf ? .trust : .reject(reason: "not our leaf")
        })
        for _ in 0..<3 { try await expectAccepted(accepting, bed, .good) }
        // Evaluated for every request, also on the reused connection.
        #expect(seen.count == 3)
        let first = try #require(seen.all.first)
        #expect(first.host == "localhost")
        #expect(first.port == bed.port(.good))
        #expect(first.certificates.count == 2, "the server sends its leaf and the CA")
        #expect(!first.chainValidated)
        let error = try await expectRejected(accepting, bed, .selfSigned, kind: .untrustedServer)
        #expect(error.message.contains("not our leaf"))
        await accepting.shutdown()

        // With chain validation, only verified servers reach the closure.
        let calls = Recorder<Int>()
        let validated = TrustTesting.session(
            default: TrustPolicy.custom { trust in
                calls.append(trust.certificates.count)
                return .trust
            }.validatingChain(against: [.file(bed.certificates.caCertificate)]))
        try await expectAccepted(validated, bed, .good)
        _ = try await expectRejected(validated, bed, .selfSigned, kind: .tlsFailure)
        #expect(calls.all == [2], "the verified chain: leaf and CA, and no call for the failed one")
        await validated.shutdown()
    }

    @Test func insecureNoEvaluationAcceptsAnythingAndWarns() async throws {
        let bed = try TrustTestBedScope.bed()
        let messages = Recorder<(Logger.Level, String)>()
        let logger = Logger(label: "test") { _ in CapturingLogHandler(messages: messages) }
        let session = TrustTesting.session(
            TrustConfiguration(default: .insecureNoEvaluation(reason: "lab device with a throwaway certificate")), logger: logger)
        for server in [Server.expired, .wrongHost, .selfSigned, .good] {
            try await expectAccepted(session, bed, server)
        }
        let warnings = messages.all.filter { $0.0 == .warning && $0.1.contains("OFF") }
        #expect(warnings.count == 1, "logged once per session and policy: \(messages.all)")
        #expect(warnings.first?.1.contains("lab device with a throwaway certificate") == true)
        await session.shutdown()
    }

    @Test func minimumTLSVersion() async throws {
        let bed = try TrustTestBedScope.bed()
        let authorities = TrustPolicy.certificateAuthorities([.file(bed.certificates.caCertificate)])
        let twelve = TrustTesting.session(default: authorities)
        #expect(try await TrustTesting.text(twelve, bed.url(.tls12Only)) == "ok TLSv1.2\n")
        await twelve.shutdown()
        let thirteen = TrustTesting.session(default: authorities.minimumTLSVersion(.v1_3))
        let error = try await expectRejected(thirteen, bed, .tls12Only, kind: .tlsFailure)
        #expect(error.curlCode == 35, "\(error)")
        try await expectAccepted(thirteen, bed, .good)
        await thirteen.shutdown()
    }

    /// `localhost` and `127.0.0.1` reach the same nginx server under different policies: the
    /// connection made for one is never used for the other unchecked, in either order.
    @Test func policiesApplyPerHostAcrossOneSession() async throws {
        let bed = try TrustTestBedScope.bed()
        let wrongPin = "sha256//" + Data(repeating: 7, count: 32).base64EncodedString()
        let trust = TrustConfiguration(
            default: .certificateAuthorities([.file(bed.certificates.caCertificate)]),
            hosts: [.exact("127.0.0.1"): .publicKeys([wrongPin], validateChain: false)])
        let session = TrustTesting.session(trust)
        for _ in 0..<2 {
            try await expectAccepted(session, bed, .good)
            let error = try await expectRejected(session, bed, .good, host: "127.0.0.1", kind: .untrustedServer)
            #expect(error.message.contains("the policy for 127.0.0.1"), "\(error.message)")
        }
        await session.shutdown()
    }

    @Test func eachRedirectHopGetsItsHostsPolicy() async throws {
        let bed = try TrustTestBedScope.bed()
        let wrongPin = "sha256//" + Data(repeating: 9, count: 32).base64EncodedString()
        let session = TrustTesting.session(TrustConfiguration(
            default: .certificateAuthorities([.file(bed.certificates.caCertificate)]),
            hosts: [.exact("127.0.0.1"): .publicKeys([wrongPin], validateChain: false)]))
        let marker = UUID().uuidString
        let error = try #require(await TrustTesting.failure(session, bed.url(.good, "/to-ip?m=\(marker)")))
        #expect(error.kind == .untrustedServer, "\(error)")
        #expect(error.url?.host == "127.0.0.1")
        #expect(await bed.received("/to-ip?m=\(marker)"), "the first hop was trusted and sent")
        #expect(try await !bed.receivedBefore(barrierOn: .good, "landed-\(marker)"), "the second hop must not be written")
        await session.shutdown()
    }

    @Test func cURLDescriptionShowsTrustFlagsButNoPassphrase() async throws {
        let bed = try TrustTestBedScope.bed()
        let pin = "sha256//" + (try bed.certificates.publicKeyDigest("good")).base64EncodedString()
        let trust = TrustConfiguration(
            default: .certificateAuthorities([.file(bed.certificates.caCertificate)]),
            hosts: [
                .exact("127.0.0.1"): TrustPolicy.publicKeys([pin], validateChain: false)
                    .clientCertificate(.pem(certificateFile: "/c.pem", keyFile: "/k.pem", passphrase: "p4ss-s3cret"))
                    .minimumTLSVersion(.v1_3),
            ])
        let session = TrustTesting.session(trust)
        let local = session.request(bed.url(.good)).cURLDescription()
        #expect(local.contains("--cacert '\(bed.certificates.caCertificate)'"), "\(local)")
        let pinned = session.request(bed.url(.good, host: "127.0.0.1")).cURLDescription()
        #expect(pinned.contains("--insecure"))
        #expect(pinned.contains("--pinnedpubkey '\(pin)'"), "\(pinned)")
        #expect(pinned.contains("--cert '/c.pem'") && pinned.contains("--key '/k.pem'") && pinned.contains("--tlsv1.3"))
        #expect(pinned.contains("--pass '***'"))
        #expect(!pinned.contains("p4ss-s3cret"))
        await session.shutdown()
    }
}
