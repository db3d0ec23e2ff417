import Foundation

/// The ``TrustPolicy`` of an HTTPS proxy's own TLS, as ``ProxyConfiguration`` keeps it.
///
/// A ``TrustPolicy`` is not `Hashable` (a custom evaluation is a closure), and a proxy
/// configuration is: this wrapper compares policies by what they check. Two custom
/// evaluations compare equal whatever their closures, which is harmless: a proxy refuses them
/// (see ``problem``), so no such configuration ever carries a request.
struct ProxyTrust: Sendable, Hashable {
    let policy: TrustPolicy

    /// libcurl's defaults: the system's certificate authorities, peer and host verified.
    static let system = ProxyTrust(.systemTrust)

    init(_ policy: TrustPolicy) { self.policy = policy }

    /// Whether this is ``TrustPolicy/systemTrust`` with nothing added.
    var isSystemDefault: Bool { self == .system }

    /// Why the policy cannot govern a proxy's TLS, or nil when it can. libcurl checks a
    /// proxy's certificate in the handshake only (`CURLOPT_PROXY_*`); the checks Curlew runs
    /// after the handshake see the origin's connection, not the proxy's.
    var problem: String? {
        // libcurl 7.88 may not tell proxy connections apart by their revocation list alone, so a
        // connection made without one could carry a request whose list revokes the proxy.
        if policy.revocationListFile != nil { return "a revocation list cannot be checked on a proxy's certificate" }
        switch policy.evaluation {
        case .system, .certificateAuthorities, .publicKeys, .disabled: return nil
        case .certificates: return "pinned certificates cannot be checked on a proxy; pin its public key (publicKeys) instead"
        case .fingerprints: return "fingerprints cannot be checked on a proxy; pin its public key (publicKeys) instead"
        case .custom: return "a custom evaluation cannot be run on a proxy's certificate"
        }
    }

    /// What the policy checks, as values.
    private enum Evaluation: Hashable {
        case system([CertificateSource])
        case certificateAuthorities([CertificateSource])
        case publicKeys([String], validateChain: Bool)
        case certificates([CertificateSource], validateChain: Bool)
        case fingerprints([CertificateFingerprint], validateChain: Bool)
        case custom(validateChain: Bool)
        case disabled(reason: String)
    }

    private var evaluation: Evaluation {
        switch policy.evaluation {
        case .system(let additional): .system(additional)
        case .certificateAuthorities(let sources): .certificateAuthorities(sources)
        case .publicKeys(let pins, let validate): .publicKeys(pins, validateChain: validate)
        case .certificates(let sources, let validate): .certificates(sources, validateChain: validate)
        case .fingerprints(let prints, let validate): .fingerprints(prints, validateChain: validate)
        case .custom(let validate, _): .custom(validateChain: validate)
        case .disabled(let reason): .disabled(reason: reason)
        }
    }

    static func == (left: ProxyTrust, right: ProxyTrust) -> Bool {
        left.evaluation == right.evaluation && left.policy.minimumTLSVersion == right.policy.minimumTLSVersion
            && left.policy.clientCertificate == right.policy.clientCertificate
            && left.policy.chainAuthorities == right.policy.chainAuthorities
            && left.policy.revocationListFile == right.policy.revocationListFile
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(evaluation)
        hasher.combine(policy.minimumTLSVersion)
        hasher.combine(policy.clientCertificate)
        hasher.combine(policy.chainAuthorities)
        hasher.combine(policy.revocationListFile)
    }

    /// The policy checked and ready for libcurl's `CURLOPT_PROXY_*` options (reads its files).
    func resolved() throws(TrustConfigurationProblem) -> ResolvedTrustPolicy {
        try ResolvedTrustPolicy(policy, index: -1, scope: "the proxy's policy")
    }
}
