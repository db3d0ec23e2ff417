import CTLSShims
import Foundation

/// One certificate of a server's chain, as ``TLSConnectionDetails`` and ``ServerTrust``
/// report it: who it names, who signed it, when it is valid, and its digest.
public struct CertificateDetails: Sendable, Hashable {
    /// The certificate, DER-encoded.
    public let der: Data
    /// The subject, in OpenSSL's one-line form (`/C=US/O=Example/CN=api.example.com`).
    public let subject: String
    /// The issuer, in the same form.
    public let issuer: String
    /// The start of the validity period.
    public let notValidBefore: Date
    /// The end of the validity period.
    public let notValidAfter: Date

    /// The details of one DER certificate; nil when `der` is not exactly one certificate.
    public init?(der: Data) {
        guard let parsed = PeerCertificate(der: der) else { return nil }
        var notBefore: Int64 = 0
        var notAfter: Int64 = 0
        let read = der.withUnsafeBytes { raw -> Int32 in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
            return curlew_certificate_validity(base, raw.count, &notBefore, &notAfter)
        }
        guard read == 1 else { return nil }
        self.der = der
        subject = parsed.subject
        issuer = parsed.issuer
        notValidBefore = Date(timeIntervalSince1970: TimeInterval(notBefore))
        notValidAfter = Date(timeIntervalSince1970: TimeInterval(notAfter))
    }

    /// The SHA-256 of ``der`` as colon-separated uppercase hex, as certificate tools print it
    /// (and as ``CertificateFingerprint`` reads it).
    public var sha256: String { PeerCertificate.hex(PeerCertificate.sha256(der)) }
}
