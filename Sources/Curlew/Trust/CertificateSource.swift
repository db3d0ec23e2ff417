import Foundation

/// Where certificates come from: a file (PEM, one or more certificates, or DER, one), a
/// directory of such files, or memory.
public struct CertificateSource: Sendable, Hashable, CustomStringConvertible {
    enum Storage: Sendable, Hashable {
        case file(String)
        case directory(String)
        case pem(String)
        case der(Data)
    }

    let storage: Storage

    /// A PEM file with one or more certificates, or a DER file with one.
    public static func file(_ path: String) -> CertificateSource { CertificateSource(storage: .file(path)) }
    /// Every `.pem`, `.crt` and `.cer` file of a directory (not its subdirectories).
    public static func directory(_ path: String) -> CertificateSource { CertificateSource(storage: .directory(path)) }
    /// PEM text with one or more certificates.
    public static func pem(_ text: String) -> CertificateSource { CertificateSource(storage: .pem(text)) }
    /// One DER-encoded certificate.
    public static func der(_ data: Data) -> CertificateSource { CertificateSource(storage: .der(data)) }

    public var description: String {
        switch storage {
        case .file(let path): "file \(path)"
        case .directory(let path): "directory \(path)"
        case .pem: "in-memory PEM"
        case .der: "in-memory DER"
        }
    }

    /// The DER certificates of the source, in order. Throws a message when the source cannot
    /// be read, holds no certificate, or holds something that is not one.
    func certificates() throws(TrustConfigurationProblem) -> [Data] {
        switch storage {
        case .pem(let text):
            return try Self.parsePEM(Data(text.utf8), origin: description)
        case .der(let data):
            return [try Self.checkedDER(data, origin: description)]
        case .file(let path):
            return try Self.certificates(inFile: path, origin: description)
        case .directory(let path):
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
            } catch {
                throw TrustConfigurationProblem("cannot read the certificate directory \(path)")
            }
            var result: [Data] = []
            for name in names where [".pem", ".crt", ".cer"].contains(where: { name.lowercased().hasSuffix($0) }) {
                let file = (path as NSString).appendingPathComponent(name)
                result += try Self.certificates(inFile: file, origin: "file \(file)")
            }
            guard !result.isEmpty else {
                throw TrustConfigurationProblem("the directory \(path) holds no .pem, .crt or .cer certificate file")
            }
            return result
        }
    }

    private static func certificates(inFile path: String, origin: String) throws(TrustConfigurationProblem) -> [Data] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TrustConfigurationProblem("cannot read the certificate \(origin)")
        }
        if String(decoding: data.prefix(65536), as: UTF8.self).contains("-----BEGIN") {
            return try parsePEM(data, origin: origin)
        }
        return [try checkedDER(data, origin: origin)]
    }

    /// The certificates of PEM text: each `BEGIN CERTIFICATE` block, base64-decoded and
    /// checked to be one X.509 certificate. Other blocks (keys) are skipped.
    static func parsePEM(_ data: Data, origin: String) throws(TrustConfigurationProblem) -> [Data] {
        let text = String(decoding: data, as: UTF8.self)
        let begin = "-----BEGIN CERTIFICATE-----"
        let end = "-----END CERTIFICATE-----"
        var result: [Data] = []
        var rest = text[...]
        while let start = rest.range(of: begin) {
            guard let stop = rest.range(of: end, range: start.upperBound..<rest.endIndex) else {
                throw TrustConfigurationProblem("the \(origin) has a certificate without its END line")
            }
            let body = rest[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }
            guard let der = Data(base64Encoded: String(body)) else {
                throw TrustConfigurationProblem("the \(origin) has a certificate that is not valid base64")
            }
            result.append(try checkedDER(der, origin: origin))
            rest = rest[stop.upperBound...]
        }
        guard !result.isEmpty else { throw TrustConfigurationProblem("the \(origin) holds no PEM certificate") }
        return result
    }

    private static func checkedDER(_ der: Data, origin: String) throws(TrustConfigurationProblem) -> Data {
        guard PeerCertificate(der: der) != nil else {
            throw TrustConfigurationProblem("the \(origin) holds data that is not an X.509 certificate")
        }
        return der
    }

    /// PEM text for `certificates` (DER), as libcurl's `CURLOPT_CAINFO_BLOB` takes it.
    static func pemText(_ certificates: [Data]) -> String {
        certificates.map { der in
            let base64 = der.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
            return "-----BEGIN CERTIFICATE-----\n\(base64)\n-----END CERTIFICATE-----\n"
        }.joined()
    }
}

/// A trust configuration that cannot be used: the message names what is wrong.
struct TrustConfigurationProblem: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
