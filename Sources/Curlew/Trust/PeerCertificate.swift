import CTLSShims
import Foundation

/// One certificate as the trust evaluation sees it: DER, public key, names and digests.
struct PeerCertificate: Sendable, Hashable {
    let der: Data
    /// The DER SubjectPublicKeyInfo.
    let publicKey: Data
    let subject: String
    let issuer: String

    /// Parses one DER certificate; nil when `der` is not exactly one.
    init?(der: Data) {
        var found: PeerCertificate?
        let visited = der.withUnsafeBytes { raw -> Int32 in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
            return withUnsafeMutablePointer(to: &found) { pointer in
                curlew_visit_certificate(base, raw.count, PeerCertificate.collectOne, pointer)
            }
        }
        guard visited == 1, let found else { return nil }
        self = found
    }

    init(der: Data, publicKey: Data, subject: String, issuer: String) {
        self.der = der
        self.publicKey = publicKey
        self.subject = subject
        self.issuer = issuer
    }

    var sha256: [UInt8] { Self.sha256(der) }
    var publicKeySHA256: [UInt8] { Self.sha256(publicKey) }

    /// The public key pin in curl's form, `sha256//BASE64`.
    var publicKeyPin: String { "sha256//" + Data(publicKeySHA256).base64EncodedString() }

    static func sha256(_ data: Data) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        data.withUnsafeBytes { raw in curlew_sha256(raw.baseAddress, raw.count, &digest) }
        return digest
    }

    static func sha1(_ data: Data) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 20)
        data.withUnsafeBytes { raw in curlew_sha1(raw.baseAddress, raw.count, &digest) }
        return digest
    }

    /// Colon-separated uppercase hex, as certificate tools print fingerprints.
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            let digits = Array("0123456789ABCDEF")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
        }.joined(separator: ":")
    }

    /// A certificate from the visitor's arguments, which are valid during the call only.
    private static func copy(
        _ der: UnsafePointer<UInt8>?, _ derLength: Int, _ spki: UnsafePointer<UInt8>?, _ spkiLength: Int,
        _ subject: UnsafePointer<CChar>?, _ issuer: UnsafePointer<CChar>?
    ) -> PeerCertificate? {
        guard let der, let spki, let subject, let issuer else { return nil }
        return PeerCertificate(
            der: Data(bytes: der, count: derLength), publicKey: Data(bytes: spki, count: spkiLength),
            subject: String(cString: subject), issuer: String(cString: issuer))
    }

    private static let collectOne: curlew_certificate_visitor = { context, der, derLength, spki, spkiLength, subject, issuer in
        guard let context, let certificate = copy(der, derLength, spki, spkiLength, subject, issuer) else { return }
        context.assumingMemoryBound(to: PeerCertificate?.self).pointee = certificate
    }

    /// The certificates of the TLS connection `handle`'s transfer uses, leaf first; nil when
    /// it has none (a plain HTTP transfer) or libcurl's TLS backend is not OpenSSL.
    static func peerCertificates(of handle: UnsafeMutableRawPointer, _ which: curlew_peer_certificates) -> Result<[PeerCertificate], PeerCertificateFailure> {
        var collected: [PeerCertificate] = []
        let count = withUnsafeMutablePointer(to: &collected) { pointer in
            curlew_tls_visit_peer_certificates(handle, which, collectMany, pointer)
        }
        switch count {
        case -1: return .failure(.noTLSSession)
        case -2: return .failure(.notOpenSSL)
        case ..<1: return .failure(.unreadable)
        default: return .success(collected)
        }
    }

    private static let collectMany: curlew_certificate_visitor = { context, der, derLength, spki, spkiLength, subject, issuer in
        guard let context, let certificate = copy(der, derLength, spki, spkiLength, subject, issuer) else { return }
        context.assumingMemoryBound(to: [PeerCertificate].self).pointee.append(certificate)
    }
}

/// Why the server's certificates could not be read.
enum PeerCertificateFailure: Error {
    case noTLSSession, notOpenSSL, unreadable

    var message: String {
        switch self {
        case .noTLSSession: "the connection has no TLS session to evaluate"
        case .notOpenSSL: "trust policies that inspect certificates need libcurl built with OpenSSL (libcurl4-openssl-dev)"
        case .unreadable: "the server's certificates could not be read"
        }
    }
}
