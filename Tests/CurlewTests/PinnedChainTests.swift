import Curlew
import Foundation
import Testing
import TestServer

/// Which chain a pin is matched against, with servers that send another chain than the one a
/// client verifies: a pin must match a certificate of the chain OpenSSL verified (built from
/// the trust store and what the server sent), never merely a certificate the server sent. A
/// server can send any certificate — a real CA's is public — after a leaf of its own.
///
/// The second hierarchy of ``TrustCertificates``: `chain-root` signed `chain-int`, which signed
/// the leaf `chained`. `appendedStrangers` sends the good leaf and its CA followed by all three.
@Suite("Pins match the verified chain, not the chain as sent", .enabled(if: NginxServer.isAvailable, "nginx is not installed"), .trustTestBed)
struct PinnedChainTests: TrustTestBedChecks {
    /// A session with one policy, used for one check.
    private func check(
        _ policy: TrustPolicy, _ server: Server, accepted: Bool, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let bed = try TrustTestBedScope.bed()
        let session = TrustTesting.session(default: policy)
        if accepted {
            try await expectAccepted(session, bed, server, sourceLocation: sourceLocation)
        } else {
            let error = try await expectRejected(session, bed, server, kind: .untrustedServer, sourceLocation: sourceLocation)
            #expect(error.message.contains("verified chain") || error.message.contains("leaf"), "\(error.message)", sourceLocation: sourceLocation)
        }
        await session.shutdown()
    }

    /// The certificates a custom evaluation is given by `server`, DER, leaf first.
    private func certificatesSeen(by policy: (@escaping @Sendable (ServerTrust) -> TrustDecision) -> TrustPolicy, _ server: Server) async throws -> [Data] {
        let bed = try TrustTestBedScope.bed()
        let seen = Recorder<[Data]>()
        let session = TrustTesting.session(default: policy { trust in
            seen.append(trust.certificates)
            return .trust
        })
        try await expectAccepted(session, bed, server)
        await session.shutdown()
        #expect(seen.count == 1)
        return seen.all.first ?? []
    }

    /// (c) A server sending its leaf and intermediate; the root comes from the trust store. Any
    /// certificate of the verified chain can be pinned, the root too although it was not sent.
    @Test func everyCertificateOfTheVerifiedChainCanBePinned() async throws {
        let certificates = try TrustTestBedScope.bed().certificates
        let root: [CertificateSource] = [.file(certificates.chainRoot)]
        for name in ["chained", "chain-int", "chain-root"] {
            try await check(.publicKeys([try certificates.publicKeyPin(name)]).validatingChain(against: root), .intermediateChain, accepted: true)
        }
        for file in [certificates.chainedLeaf, certificates.chainIntermediate, certificates.chainRoot] {
            try await check(.certificates([.file(file)]).validatingChain(against: root), .intermediateChain, accepted: true)
        }
        // A key of no certificate of that chain.
        try await check(.publicKeys([try certificates.publicKeyPin("ca")]).validatingChain(against: root), .intermediateChain, accepted: false)

        let verified = try await certificatesSeen(by: { TrustPolicy.custom($0).validatingChain(against: root) }, .intermediateChain)
        #expect(verified == [try certificates.der("chained"), try certificates.der("chain-int"), try certificates.der("chain-root")])
        let sent = try await certificatesSeen(by: { TrustPolicy.custom(validateChain: false, $0) }, .intermediateChain)
        #expect(sent == [try certificates.der("chained"), try certificates.der("chain-int")])
    }

    /// (a) A server sending its leaf alone. With only the root trusted, no chain can be built and
    /// the handshake fails whatever is pinned. With the intermediate trusted as well, OpenSSL
    /// completes the chain from the trust store: the intermediate's pin matches although the
    /// server never sent it, and the chain ends there (see below). Without chain validation,
    /// only the leaf counts.
    @Test func aLeafOnlyServerIsJudgedByTheChainTheTrustStoreCompletes() async throws {
        let bed = try TrustTestBedScope.bed()
        let certificates = bed.certificates
        let rootOnly: [CertificateSource] = [.file(certificates.chainRoot)]
        for name in ["chain-int", "chain-root"] {
            let session = TrustTesting.session(default: .publicKeys([try certificates.publicKeyPin(name)]).validatingChain(against: rootOnly))
            let error = try await expectRejected(session, bed, .leafOnly, kind: .tlsFailure)
            #expect(error.curlCode == 60, "\(error)")
            await session.shutdown()
        }

        let rootAndIntermediate: [CertificateSource] = [.file(certificates.chainRoot), .file(certificates.chainIntermediate)]
        try await check(
            .publicKeys([try certificates.publicKeyPin("chain-int")]).validatingChain(against: rootAndIntermediate), .leafOnly, accepted: true)
        try await check(
            .certificates([.file(certificates.chainIntermediate)]).validatingChain(against: rootAndIntermediate), .leafOnly, accepted: true)
        let verified = try await certificatesSeen(by: { TrustPolicy.custom($0).validatingChain(against: rootAndIntermediate) }, .leafOnly)
        // libcurl lets OpenSSL accept a chain that ends at any trusted certificate
        // (X509_V_FLAG_PARTIAL_CHAIN): the verified chain stops at the trusted intermediate, so
        // the root above it is not part of it and its pin does not match.
        #expect(verified == [try certificates.der("chained"), try certificates.der("chain-int")])
        try await check(
            .publicKeys([try certificates.publicKeyPin("chain-root")]).validatingChain(against: rootAndIntermediate), .leafOnly, accepted: false)

        try await check(.publicKeys([try certificates.publicKeyPin("chain-int")], validateChain: false), .leafOnly, accepted: false)
        try await check(.publicKeys([try certificates.publicKeyPin("chained")], validateChain: false), .leafOnly, accepted: true)
        let sent = try await certificatesSeen(by: { TrustPolicy.custom(validateChain: false, $0) }, .leafOnly)
        #expect(sent == [try certificates.der("chained")])
    }

    /// (b) A server with a valid chain of its own (the good leaf and its CA, both trusted) that
    /// appends the pinned certificates — an intermediate, a root and a leaf of another
    /// hierarchy — must be refused by every policy: none of them is on its verified path.
    @Test func certificatesAppendedToAnotherChainMatchNoPin() async throws {
        let certificates = try TrustTestBedScope.bed().certificates
        let trusted: [CertificateSource] = [.file(certificates.caCertificate), .file(certificates.chainRoot)]
        // The control: the server's own chain verifies, and its CA's key matches.
        try await check(.publicKeys([try certificates.publicKeyPin("ca")]).validatingChain(against: trusted), .appendedStrangers, accepted: true)

        for name in ["chain-int", "chain-root", "chained"] {
            try await check(
                .publicKeys([try certificates.publicKeyPin(name)]).validatingChain(against: trusted), .appendedStrangers, accepted: false)
        }
        let appended: [CertificateSource] = [.file(certificates.chainIntermediate), .file(certificates.chainRoot), .file(certificates.chainedLeaf)]
        try await check(.certificates(appended).validatingChain(against: trusted), .appendedStrangers, accepted: false)

        // Without chain validation only the leaf counts: the appended leaf is not it.
        try await check(.publicKeys([try certificates.publicKeyPin("chained")], validateChain: false), .appendedStrangers, accepted: false)
        try await check(.certificates([.file(certificates.chainedLeaf)], validateChain: false), .appendedStrangers, accepted: false)
        let chainedKeyHex = try certificates.publicKeyDigest("chained").map { String(format: "%02x", $0) }.joined()
        for fingerprint in [CertificateFingerprint.sha256(try certificates.fingerprint("chained", "sha256")), .publicKey(chainedKeyHex)] {
            try await check(.fingerprints([fingerprint], validateChain: false), .appendedStrangers, accepted: false)
            try await check(.fingerprints([fingerprint]).validatingChain(against: trusted), .appendedStrangers, accepted: false)
        }

        // A custom evaluation that validates sees the verified path only; one that does not sees
        // everything sent, which is why ``ServerTrust/chainValidated`` is false for it.
        let verified = try await certificatesSeen(by: { TrustPolicy.custom($0).validatingChain(against: trusted) }, .appendedStrangers)
        #expect(verified == [try certificates.der("good"), try certificates.der("ca")])
        let sent = try await certificatesSeen(by: { TrustPolicy.custom(validateChain: false, $0) }, .appendedStrangers)
        #expect(sent.count == 5)
    }
}
