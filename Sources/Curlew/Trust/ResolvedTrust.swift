import CCurlShims
import Foundation

/// A ``TrustConfiguration`` checked and turned into what the curl thread applies: libcurl
/// options per policy and the checks that run after the handshake. Made once per session.
final class ResolvedTrust: Sendable {
    /// Index 0 is the default policy.
    let policies: [ResolvedTrustPolicy]
    private let configuration: TrustConfiguration
    private let indexByPattern: [HostPattern: Int]
    /// Whether one policy applies to every host (there are no host patterns): its options are
    /// set once, when a handle is made, and nothing is set per request but the check's data.
    let isUniform: Bool
    /// Whether a uniform configuration still has work per request: a check after the
    /// handshake, or a warning to log.
    let uniformPolicyActsPerRequest: Bool

    init(_ configuration: TrustConfiguration) throws(TrustConfigurationProblem) {
        self.configuration = configuration
        var policies = [try ResolvedTrustPolicy(configuration.defaultPolicy, index: 0, scope: "the default policy")]
        var indexByPattern: [HostPattern: Int] = [:]
        for (pattern, policy) in configuration.hosts.sorted(by: { $0.key.text < $1.key.text }) {
            if let problem = pattern.problem {
                throw TrustConfigurationProblem("the host pattern '\(pattern.text)' is invalid: \(problem)")
            }
            indexByPattern[pattern] = policies.count
            policies.append(try ResolvedTrustPolicy(policy, index: policies.count, scope: "the policy for \(pattern)"))
        }
        self.policies = policies
        self.indexByPattern = indexByPattern
        isUniform = configuration.hosts.isEmpty
        uniformPolicyActsPerRequest = policies[0].postHandshakeCheck != nil || policies[0].insecureReason != nil
    }

    /// The policy for a request to `host`.
    func policy(forHost host: String) -> ResolvedTrustPolicy {
        guard !isUniform, let pattern = configuration.policy(forHost: host).pattern, let index = indexByPattern[pattern] else {
            return policies[0]
        }
        return policies[index]
    }
}

/// One policy, ready for libcurl.
///
/// A class: a transfer holds one optionally, and an optional struct of this size was copied
/// and destroyed through outlined value-witness code on every request (about 240
/// instructions), where an optional reference is one pointer.
final class ResolvedTrustPolicy: Sendable {
    /// Position in ``ResolvedTrust/policies``; a handle remembers the last one applied.
    let index: Int
    /// "the default policy" or "the policy for api.example.com", for errors and logs.
    let scope: String
    let policy: TrustPolicy
    let verifyPeer: Bool
    let verifyHost: Bool
    /// PEM for `CURLOPT_CAINFO_BLOB`, when the policy names certificate authorities.
    let certificateAuthorities: Data?
    /// Whether only ``certificateAuthorities`` count (libcurl's default CA path is cleared).
    let replacesSystemAuthorities: Bool
    let postHandshakeCheck: PostHandshakeCheck?
    let insecureReason: String?

    /// What is checked once the TLS handshake is done, before the request is written.
    enum PostHandshakeCheck: Sendable {
        /// SHA-256 digests of SubjectPublicKeyInfo DER.
        case publicKeys(Set<[UInt8]>, anyInChain: Bool)
        /// DER certificates.
        case certificates(Set<Data>, anyInChain: Bool)
        /// Leaf fingerprints.
        case fingerprints([(kind: CertificateFingerprint.Kind, digest: [UInt8])])
        case custom(validateChain: Bool, @Sendable (ServerTrust) -> TrustDecision)
    }

    init(_ policy: TrustPolicy, index: Int, scope: String) throws(TrustConfigurationProblem) {
        self.index = index
        self.scope = scope
        self.policy = policy
        var verify = true
        var authorities: [Data]?
        var replaces = false
        var check: PostHandshakeCheck?
        var insecure: String?
        func problem(_ error: TrustConfigurationProblem) -> TrustConfigurationProblem {
            TrustConfigurationProblem("\(scope): \(error.message)")
        }
        do throws(TrustConfigurationProblem) {
            switch policy.evaluation {
            case .system(let additional):
                if !additional.isEmpty {
                    authorities = try Self.systemAuthorities() + Self.certificates(additional)
                }
            case .certificateAuthorities(let sources):
                guard !sources.isEmpty else { throw TrustConfigurationProblem("no certificate authority is given") }
                authorities = try Self.certificates(sources)
                replaces = true
            case .publicKeys(let pins, let validateChain):
                guard !pins.isEmpty else { throw TrustConfigurationProblem("no public key is pinned") }
                var digests = Set<[UInt8]>()
                for pin in pins {
                    guard pin.hasPrefix("sha256//") else {
                        throw TrustConfigurationProblem("the public key pin '\(pin)' must have the form sha256//BASE64")
                    }
                    digests.insert(try CertificateFingerprint.publicKey(pin).digest())
                }
                check = .publicKeys(digests, anyInChain: validateChain)
                verify = validateChain
            case .certificates(let sources, let validateChain):
                guard !sources.isEmpty else { throw TrustConfigurationProblem("no certificate is pinned") }
                let pinned = try Self.certificates(sources)
                check = .certificates(Set(pinned), anyInChain: validateChain)
                verify = validateChain
            case .fingerprints(let fingerprints, let validateChain):
                guard !fingerprints.isEmpty else { throw TrustConfigurationProblem("no fingerprint is given") }
                var digests: [(kind: CertificateFingerprint.Kind, digest: [UInt8])] = []
                for fingerprint in fingerprints { digests.append((fingerprint.kind, try fingerprint.digest())) }
                check = .fingerprints(digests)
                verify = validateChain
            case .custom(let validateChain, let evaluate):
                check = .custom(validateChain: validateChain, evaluate)
                verify = validateChain
            case .disabled(let reason):
                verify = false
                insecure = reason.isEmpty ? "no reason given" : reason
            }
            if let chainAuthorities = policy.chainAuthorities {
                guard check != nil, verify else {
                    throw TrustConfigurationProblem(
                        "validatingChain(against:) applies to pins, fingerprints and custom evaluations with validateChain: true")
                }
                guard !chainAuthorities.isEmpty else { throw TrustConfigurationProblem("no certificate authority is given to validate the chain against") }
                authorities = try Self.certificates(chainAuthorities)
                replaces = true
            }
            if let path = policy.revocationListFile { try Self.checkRevocationList(path, verifies: verify) }
            try policy.clientCertificate?.validate()
            if let problem = policy.tlsParameters.problem { throw TrustConfigurationProblem(problem) }
        } catch {
            throw problem(error)
        }
        verifyPeer = verify
        verifyHost = verify
        certificateAuthorities = authorities.map { Data(CertificateSource.pemText($0).utf8) }
        replacesSystemAuthorities = replaces
        postHandshakeCheck = check
        insecureReason = insecure
    }

    /// The pinned public keys in `CURLOPT_PINNEDPUBLICKEY`'s form (`sha256//BASE64;…`), for a
    /// check libcurl makes itself (an HTTPS proxy's); nil when the policy pins no key.
    var libcurlPinnedPublicKeys: String? {
        guard case .publicKeys(let digests, _)? = postHandshakeCheck else { return nil }
        return digests.map { "sha256//" + Data($0).base64EncodedString() }.sorted().joined(separator: ";")
    }

    /// Whether libcurl's defaults, as a new handle has them, already apply this policy.
    var isLibcurlDefault: Bool {
        verifyPeer && certificateAuthorities == nil && postHandshakeCheck == nil && policy.clientCertificate == nil
            && policy.minimumTLSVersion == .v1_2 && policy.revocationListFile == nil
    }

    /// Why the revocation list file at `path` cannot be used, thrown: a policy that does not
    /// verify the chain, a file that is not there, not this user's regular file or holds no
    /// PEM list (libcurl would only fail later, at each handshake).
    private static func checkRevocationList(_ path: String, verifies: Bool) throws(TrustConfigurationProblem) {
        guard verifies else {
            throw TrustConfigurationProblem("a revocation list applies only to a policy that validates the chain")
        }
        // Public data, often root's: any regular file this process can read (not a FIFO, which
        // would block), of at most 64 MiB.
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else {
            throw TrustConfigurationProblem("the revocation list file \(path) does not exist")
        }
        guard attributes[.type] as? FileAttributeType == .typeRegular else {
            throw TrustConfigurationProblem("the revocation list file \(path) is not a regular file")
        }
        guard (attributes[.size] as? NSNumber)?.intValue ?? 0 <= 64 << 20 else {
            throw TrustConfigurationProblem("the revocation list file \(path) is larger than 64 MiB")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TrustConfigurationProblem("the revocation list file \(path) cannot be read")
        }
        guard data.range(of: Data("-----BEGIN X509 CRL-----".utf8)) != nil else {
            throw TrustConfigurationProblem("the revocation list file \(path) holds no PEM revocation list (-----BEGIN X509 CRL-----)")
        }
    }

    private static func certificates(_ sources: [CertificateSource]) throws(TrustConfigurationProblem) -> [Data] {
        var result: [Data] = []
        for source in sources { result += try source.certificates() }
        return result
    }

    /// The certificates of libcurl's default CA bundle file, for "system trust and more".
    private static func systemAuthorities() throws(TrustConfigurationProblem) -> [Data] {
        guard let path = LibcurlDefaults.caInfo else {
            throw TrustConfigurationProblem("libcurl has no default CA bundle file to add certificate authorities to")
        }
        return try CertificateSource.file(path).certificates()
    }
}

/// libcurl's built-in CA locations, read once from a fresh handle (CURLINFO_CAINFO and
/// CURLINFO_CAPATH, libcurl 7.84 and later), so a pooled handle can get them back.
enum LibcurlDefaults {
    static let caInfo: String? = read(CURLINFO_CAINFO)
    static let caPath: String? = read(CURLINFO_CAPATH)

    private static func read(_ info: CURLINFO) -> String? {
        guard let handle = curl_easy_init() else { return nil }
        defer { curl_easy_cleanup(handle) }
        var value: UnsafePointer<CChar>?
        guard curlew_easy_getinfo_string(handle, info, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }
}
