import Foundation

/// What a custom trust evaluation sees: the host and the server's certificates.
public struct ServerTrust: Sendable {
    /// The host of the request (as in its URL, lowercased).
    public let host: String
    /// The port of the request.
    public let port: Int
    /// The certificates, DER-encoded, leaf first: the chain OpenSSL verified when the policy
    /// validates the chain, else the certificates the server sent (unverified).
    public let certificates: [Data]
    /// Whether OpenSSL verified ``certificates`` against the trusted certificate authorities
    /// and the host name before the evaluation was called.
    public let chainValidated: Bool
    /// The connection's TLS version, cipher suite and ALPN protocol, with ``certificates`` as
    /// ``CertificateDetails``; nil when OpenSSL could not say.
    public let connection: TLSConnectionDetails?

    /// The leaf certificate's SHA-256, as colon-separated uppercase hex.
    public var leafSHA256: String? { certificates.first.map { PeerCertificate.hex(PeerCertificate.sha256($0)) } }
}

/// The answer of a custom trust evaluation.
public enum TrustDecision: Sendable, Hashable {
    /// Go on with the request.
    case trust
    /// Refuse the server; `reason` goes into the error.
    case reject(reason: String)
}
