import Foundation

/// How the server of a connection is trusted, for the hosts a ``TrustConfiguration`` gives
/// it, and which client certificate those connections present.
///
/// Checks that libcurl does itself (the chain against certificate authorities, the host name,
/// the TLS version) happen in the handshake. Pins, fingerprints and custom evaluations happen
/// after the handshake and before any byte of the request is written, on new and reused
/// connections alike (see docs/ARCHITECTURE.md).
///
/// Pins and fingerprints made with `validateChain: false` accept a server without any
/// certificate authority (a self-signed server, say). Then only the leaf certificate can match:
/// a server proves it holds the leaf's key, while the rest of what it sends could be copied
/// from anywhere.
public struct TrustPolicy: Sendable, CustomStringConvertible {
    enum Evaluation: Sendable {
        case system(additional: [CertificateSource])
        case certificateAuthorities([CertificateSource])
        case publicKeys([String], validateChain: Bool)
        case certificates([CertificateSource], validateChain: Bool)
        case fingerprints([CertificateFingerprint], validateChain: Bool)
        case custom(validateChain: Bool, @Sendable (ServerTrust) -> TrustDecision)
        case disabled(reason: String)
    }

    let evaluation: Evaluation
    /// The oldest TLS version accepted; TLS 1.2 unless set.
    public var minimumTLSVersion: TLSVersion = .v1_2
    /// Cipher suites, key-exchange groups and OCSP stapling; libcurl's defaults unless set.
    public var tlsParameters = TLSParameters()
    /// The client certificate presented to these hosts, if any.
    public var clientCertificate: ClientCertificate?
    /// A PEM file of certificate revocation lists (`CURLOPT_CRLFILE`, curl's `--crlfile`); see
    /// ``checkingRevocation(againstFile:)``. Nil checks no revocation.
    public var revocationListFile: String?
    /// For pins, fingerprints and custom evaluations that validate the chain: the
    /// certificate authorities to validate against instead of the system's.
    var chainAuthorities: [CertificateSource]?

    init(_ evaluation: Evaluation) { self.evaluation = evaluation }

    /// The system's certificate authorities (the default).
    public static let systemTrust = TrustPolicy(.system(additional: []))

    /// The system's certificate authorities and these ones.
    public static func systemTrust(adding certificateAuthorities: [CertificateSource]) -> TrustPolicy {
        TrustPolicy(.system(additional: certificateAuthorities))
    }

    /// Only these certificate authorities, instead of the system's.
    public static func certificateAuthorities(_ sources: [CertificateSource]) -> TrustPolicy {
        TrustPolicy(.certificateAuthorities(sources))
    }

    /// The server must present one of these public keys, each `sha256//BASE64` of the DER
    /// SubjectPublicKeyInfo (curl's `--pinnedpubkey` form; ``CertificateFingerprint/publicKey(_:)``
    /// takes hex). With `validateChain`, the chain must also verify against the system's
    /// certificate authorities and the key may be that of any certificate of the verified
    /// chain; without it, the leaf's key must match.
    public static func publicKeys(_ pins: [String], validateChain: Bool = true) -> TrustPolicy {
        TrustPolicy(.publicKeys(pins, validateChain: validateChain))
    }

    /// The server must present one of these certificates: with `validateChain`, anywhere in
    /// the verified chain; without it, as its leaf.
    public static func certificates(_ sources: [CertificateSource], validateChain: Bool = true) -> TrustPolicy {
        TrustPolicy(.certificates(sources, validateChain: validateChain))
    }

    /// The leaf certificate must have one of these fingerprints.
    public static func fingerprints(_ fingerprints: [CertificateFingerprint], validateChain: Bool = true) -> TrustPolicy {
        TrustPolicy(.fingerprints(fingerprints, validateChain: validateChain))
    }

    /// `evaluate` decides, given the host and the certificates. It runs on Curlew's network
    /// thread before the request is sent, for every request (new and reused connections):
    /// keep it quick and never block in it. With `validateChain`, it only sees servers whose
    /// chain and host name verified.
    public static func custom(
        validateChain: Bool = true, _ evaluate: @escaping @Sendable (ServerTrust) -> TrustDecision
    ) -> TrustPolicy {
        TrustPolicy(.custom(validateChain: validateChain, evaluate))
    }

    /// No evaluation at all: any certificate, any host name. Anyone on the path can read and
    /// change the traffic. Give the `reason` (it is logged at warning level, once per session
    /// and host pattern, when a request uses the policy).
    public static func insecureNoEvaluation(reason: String) -> TrustPolicy {
        TrustPolicy(.disabled(reason: reason))
    }

    /// This policy with another minimum TLS version.
    public func minimumTLSVersion(_ version: TLSVersion) -> TrustPolicy {
        var copy = self
        copy.minimumTLSVersion = version
        return copy
    }

    /// This policy with other TLS parameters (cipher suites, groups, OCSP stapling). Bad names
    /// fail requests with ``CurlewError/Kind/invalidRequest`` before any connection.
    public func tlsParameters(_ parameters: TLSParameters) -> TrustPolicy {
        var copy = self
        copy.tlsParameters = parameters
        return copy
    }

    /// This pin, fingerprint or custom policy, validating the chain against these certificate
    /// authorities instead of the system's (a private CA, say). Only for policies made with
    /// `validateChain: true`; others fail with ``CurlewError/Kind/invalidRequest``.
    public func validatingChain(against certificateAuthorities: [CertificateSource]) -> TrustPolicy {
        var copy = self
        copy.chainAuthorities = certificateAuthorities
        return copy
    }

    /// This policy, refusing a server whose certificate a revocation list in the PEM file at
    /// `path` (`-----BEGIN X509 CRL-----`) revokes (`CURLOPT_CRLFILE`). With OpenSSL, the list of
    /// the leaf's issuer must be in the file, or every handshake fails; intermediates are not
    /// checked. Only for policies that validate the chain. A file that is missing, unreadable or
    /// holds no list fails requests with ``CurlewError/Kind/invalidRequest`` before any
    /// connection; a revoked certificate fails the handshake with ``CurlewError/Kind/tlsFailure``.
    /// libcurl reads the file when it makes a connection, and its DNS-over-HTTPS lookups (see
    /// ``DNSOverHTTPS``) use it too.
    public func checkingRevocation(againstFile path: String) -> TrustPolicy {
        var copy = self
        copy.revocationListFile = path
        return copy
    }

    /// This policy, presenting `certificate` to the server.
    public func clientCertificate(_ certificate: ClientCertificate?) -> TrustPolicy {
        var copy = self
        copy.clientCertificate = certificate
        return copy
    }

    /// Whether libcurl checks the chain and the host name in the handshake under this policy:
    /// only then may the connection teach HSTS (RFC 6797 §8.1).
    var validatesChain: Bool {
        switch evaluation {
        case .system, .certificateAuthorities: true
        case .publicKeys(_, let validate), .certificates(_, let validate), .fingerprints(_, let validate),
            .custom(let validate, _):
            validate
        case .disabled: false
        }
    }

    /// The policy's kind, as errors name it.
    public var description: String {
        switch evaluation {
        case .system(let additional): additional.isEmpty ? "system trust" : "system trust and \(additional.count) more certificate source(s)"
        case .certificateAuthorities(let sources): "only \(sources.count) certificate authority source(s)"
        case .publicKeys(let pins, let validate): "\(pins.count) pinned public key(s)\(validate ? "" : " without chain validation")"
        case .certificates(let sources, let validate): "\(sources.count) pinned certificate source(s)\(validate ? "" : " without chain validation")"
        case .fingerprints(let prints, let validate): "\(prints.count) leaf fingerprint(s)\(validate ? "" : " without chain validation")"
        case .custom(let validate, _): "custom evaluation\(validate ? "" : " without chain validation")"
        case .disabled: "insecure: no evaluation"
        }
    }
}

/// A TLS protocol version.
public enum TLSVersion: Sendable, Hashable, Comparable {
    case v1_2, v1_3
}
