import Foundation

/// A fingerprint of the server's leaf certificate, in the hex form tools print and people
/// paste: with or without colons or spaces, in any case (`AB:CD:…`, `abcd…`).
///
/// HTTPTransport's `Certificate(host:fingerprint:)` kinds map to ``sha256(_:)``, ``sha1(_:)``
/// and ``publicKey(_:)``.
public struct CertificateFingerprint: Sendable, Hashable, CustomStringConvertible {
    enum Kind: String, Sendable, Hashable {
        case certificateSHA256 = "SHA-256"
        case certificateSHA1 = "SHA-1"
        case publicKeySHA256 = "public key SHA-256"
    }

    let kind: Kind
    let text: String

    /// The SHA-256 of the certificate's DER (`openssl x509 -fingerprint -sha256`).
    public static func sha256(_ hex: String) -> CertificateFingerprint { CertificateFingerprint(kind: .certificateSHA256, text: hex) }
    /// The SHA-1 of the certificate's DER (`openssl x509 -fingerprint -sha1`). SHA-1 is weak
    /// against collisions; prefer SHA-256 where you can.
    public static func sha1(_ hex: String) -> CertificateFingerprint { CertificateFingerprint(kind: .certificateSHA1, text: hex) }
    /// The SHA-256 of the certificate's SubjectPublicKeyInfo, in hex, or in curl's
    /// `sha256//BASE64` form. Survives certificate renewals that keep the key.
    public static func publicKey(_ digest: String) -> CertificateFingerprint { CertificateFingerprint(kind: .publicKeySHA256, text: digest) }

    public var description: String { "\(kind.rawValue) \(text)" }

    /// The digest bytes; throws when the text is not a digest of the right length.
    func digest() throws(TrustConfigurationProblem) -> [UInt8] {
        let length = kind == .certificateSHA1 ? 20 : 32
        if kind == .publicKeySHA256, text.hasPrefix("sha256//") {
            guard let data = Data(base64Encoded: String(text.dropFirst(8))), data.count == 32 else {
                throw TrustConfigurationProblem("the public key pin '\(text)' is not sha256// followed by the base64 of 32 bytes")
            }
            return Array(data)
        }
        var nibbles: [UInt8] = []
        for character in text.unicodeScalars {
            if character == ":" || character == " " { continue }
            guard let value = Self.hexDigitValue(character) else {
                throw TrustConfigurationProblem("the \(kind.rawValue) fingerprint '\(text)' has a character that is not a hex digit")
            }
            nibbles.append(value)
        }
        guard nibbles.count == length * 2 else {
            throw TrustConfigurationProblem(
                "the \(kind.rawValue) fingerprint '\(text)' has \(nibbles.count) hex digits, not \(length * 2)")
        }
        return stride(from: 0, to: nibbles.count, by: 2).map { nibbles[$0] << 4 | nibbles[$0 + 1] }
    }

    private static func hexDigitValue(_ scalar: Unicode.Scalar) -> UInt8? {
        switch scalar {
        case "0"..."9": UInt8(scalar.value - 0x30)
        case "a"..."f": UInt8(scalar.value - 0x61 + 10)
        case "A"..."F": UInt8(scalar.value - 0x41 + 10)
        default: nil
        }
    }
}
