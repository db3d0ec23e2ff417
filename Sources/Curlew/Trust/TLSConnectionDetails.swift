import CTLSShims
import Foundation

/// What the TLS connection of a response was: the protocol version, cipher suite and
/// key-exchange group OpenSSL negotiated, the application protocol chosen by ALPN, and (when the session asks for them,
/// ``SessionConfiguration/capturesPeerCertificates``) the certificates the server sent.
///
/// Read from ``TransferMetrics/tls`` (`response.metrics.tls`), nil for plain HTTP and for
/// responses from the cache; custom trust evaluations see it in ``ServerTrust/connection``.
public struct TLSConnectionDetails: Sendable, Hashable {
    /// The protocol version, as OpenSSL names it: `TLSv1.2`, `TLSv1.3`.
    public var protocolVersion: String
    /// The cipher suite, as OpenSSL names it: `TLS_AES_256_GCM_SHA384`, `ECDHE-RSA-AES128-GCM-SHA256`.
    public var cipherSuite: String
    /// The key-exchange group (curve) OpenSSL negotiated, as it names it (`x25519`,
    /// `secp384r1`); nil when it cannot say.
    public var keyExchangeGroup: String?
    /// The protocol ALPN chose (`h2`, `http/1.1`); nil when the server chose none.
    public var applicationProtocol: String?
    /// The certificates the server sent, leaf first, as it sent them (verified or not); empty
    /// unless ``SessionConfiguration/capturesPeerCertificates`` is on (or in a trust evaluation).
    public var peerCertificates: [CertificateDetails]

    /// Details as given.
    public init(
        protocolVersion: String, cipherSuite: String, keyExchangeGroup: String? = nil, applicationProtocol: String?,
        peerCertificates: [CertificateDetails] = []
    ) {
        self.protocolVersion = protocolVersion
        self.cipherSuite = cipherSuite
        self.keyExchangeGroup = keyExchangeGroup
        self.applicationProtocol = applicationProtocol
        self.peerCertificates = peerCertificates
    }

    /// The details of the TLS connection `handle`'s transfer uses, or nil when it has none;
    /// the certificates only when `certificates`.
    static func read(from handle: UnsafeMutableRawPointer, certificates: Bool) -> TLSConnectionDetails? {
        var version: UnsafePointer<CChar>?
        var cipher: UnsafePointer<CChar>?
        var group: UnsafePointer<CChar>?
        var alpn: UnsafePointer<UInt8>?
        var alpnLength: UInt32 = 0
        guard curlew_tls_connection(handle, &version, &cipher, &group, &alpn, &alpnLength) == 0 else { return nil }
        var peers: [CertificateDetails] = []
        if certificates, case .success(let chain) = PeerCertificate.peerCertificates(of: handle, curlew_peer_sent_chain) {
            peers = chain.compactMap { CertificateDetails(der: $0.der) }
        }
        return TLSConnectionDetails(
            protocolVersion: version.map { String(cString: $0) } ?? "",
            cipherSuite: cipher.map { String(cString: $0) } ?? "",
            keyExchangeGroup: group.map { String(cString: $0) },
            applicationProtocol: alpn.flatMap { alpnLength > 0 ? String(decoding: UnsafeBufferPointer(start: $0, count: Int(alpnLength)), as: UTF8.self) : nil },
            peerCertificates: peers)
    }
}

/// ``TLSConnectionDetails`` behind one reference, so that ``TransferMetrics`` (copied several
/// times per request) grows by a pointer, not by four fields.
final class TLSConnectionBox: Sendable, Hashable {
    let details: TLSConnectionDetails

    init(_ details: TLSConnectionDetails) { self.details = details }

    static func == (lhs: TLSConnectionBox, rhs: TLSConnectionBox) -> Bool { lhs.details == rhs.details }
    func hash(into hasher: inout Hasher) { hasher.combine(details) }
}
