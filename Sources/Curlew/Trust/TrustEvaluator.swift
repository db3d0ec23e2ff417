import CTLSShims
import Foundation

/// Runs a policy's post-handshake check on the connection a transfer is about to use, new or
/// reused, from libcurl's `CURLOPT_PREREQFUNCTION` (after the handshake, before the request
/// is written). See docs/ARCHITECTURE.md for why this hook.
enum TrustEvaluator {
    /// nil when the server is trusted; otherwise the error that fails the request.
    static func evaluate(_ policy: ResolvedTrustPolicy, handle: UnsafeMutableRawPointer, url: URL) -> CurlewError? {
        guard let check = policy.postHandshakeCheck else { return nil }
        let which: curlew_peer_certificates
        switch check {
        case .publicKeys(_, let anyInChain), .certificates(_, let anyInChain):
            which = anyInChain ? curlew_peer_verified_chain : curlew_peer_leaf
        case .fingerprints: which = curlew_peer_leaf
        case .custom(let validateChain, _): which = validateChain ? curlew_peer_verified_chain : curlew_peer_sent_chain
        }
        let chain: [PeerCertificate]
        switch PeerCertificate.peerCertificates(of: handle, which) {
        case .success(let certificates): chain = certificates
        case .failure(let failure): return rejection(policy, url: url, reason: failure.message, leaf: nil)
        }
        let host = HostPattern.normalized(url.host ?? "")
        switch check {
        case .publicKeys(let digests, _):
            if chain.contains(where: { digests.contains($0.publicKeySHA256) }) { return nil }
            return rejection(policy, url: url, reason: "no public key of the \(scope(which)) matches a pin", leaf: chain.first)
        case .certificates(let pinned, _):
            if chain.contains(where: { pinned.contains($0.der) }) { return nil }
            return rejection(policy, url: url, reason: "no certificate of the \(scope(which)) is pinned", leaf: chain.first)
        case .fingerprints(let fingerprints):
            guard let leaf = chain.first else { return nil }
            let matches = fingerprints.contains { fingerprint in
                switch fingerprint.kind {
                case .certificateSHA256: leaf.sha256 == fingerprint.digest
                case .certificateSHA1: PeerCertificate.sha1(leaf.der) == fingerprint.digest
                case .publicKeySHA256: leaf.publicKeySHA256 == fingerprint.digest
                }
            }
            return matches ? nil : rejection(policy, url: url, reason: "the leaf certificate matches no fingerprint", leaf: leaf)
        case .custom(let validateChain, let evaluate):
            var connection = TLSConnectionDetails.read(from: handle, certificates: false)
            connection?.peerCertificates = chain.compactMap { CertificateDetails(der: $0.der) }
            let trust = ServerTrust(
                host: host, port: url.port ?? 443, certificates: chain.map(\.der), chainValidated: validateChain,
                connection: connection)
            switch evaluate(trust) {
            case .trust: return nil
            case .reject(let reason):
                return rejection(policy, url: url, reason: "the custom evaluation rejected it: \(reason)", leaf: chain.first)
            }
        }
    }

    private static func scope(_ which: curlew_peer_certificates) -> String {
        which == curlew_peer_verified_chain ? "verified chain" : "leaf certificate"
    }

    /// An error a user can fix a pin from: host, policy, reason and what the server showed.
    private static func rejection(_ policy: ResolvedTrustPolicy, url: URL, reason: String, leaf: PeerCertificate?) -> CurlewError {
        let host = url.host ?? "?"
        var text = "\(host) is not trusted by \(policy.scope) (\(policy.policy)): \(reason)"
        if let leaf {
            text += "; the server's leaf certificate has SHA-256 \(PeerCertificate.hex(leaf.sha256)), public key \(leaf.publicKeyPin), subject \(leaf.subject), issuer \(leaf.issuer)"
        }
        return CurlewError(.untrustedServer, text, url: url)
    }
}
