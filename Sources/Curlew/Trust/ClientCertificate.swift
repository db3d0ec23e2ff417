import Foundation

/// A client certificate and its private key for mutual TLS, from files or memory.
///
/// libcurl reads them when a connection is made; a wrong passphrase or a key that does not
/// belong to the certificate fails that connection with ``CurlewError/Kind/tlsFailure``.
public struct ClientCertificate: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    enum Format: String, Sendable, Hashable {
        case pem = "PEM", der = "DER", pkcs12 = "P12"
    }

    enum Source: Sendable, Hashable {
        case file(String)
        case data(Data)
    }

    let format: Format
    let certificate: Source
    /// The key, unless it is in the certificate's file or blob (PKCS#12, or a PEM holding both).
    let key: Source?
    let keyFormat: Format
    let passphrase: String?

    /// A PEM certificate file and, unless the file holds the key too, a PEM key file.
    public static func pem(certificateFile: String, keyFile: String? = nil, passphrase: String? = nil) -> ClientCertificate {
        ClientCertificate(format: .pem, certificate: .file(certificateFile), key: keyFile.map(Source.file), keyFormat: .pem, passphrase: passphrase)
    }

    /// A DER certificate file and a DER (or PEM) key file.
    public static func der(certificateFile: String, keyFile: String, keyIsPEM: Bool = false, passphrase: String? = nil) -> ClientCertificate {
        ClientCertificate(format: .der, certificate: .file(certificateFile), key: .file(keyFile), keyFormat: keyIsPEM ? .pem : .der, passphrase: passphrase)
    }

    /// A PEM certificate and PEM key in memory (`CURLOPT_SSLCERT_BLOB`, `CURLOPT_SSLKEY_BLOB`).
    public static func pem(certificate: Data, key: Data, passphrase: String? = nil) -> ClientCertificate {
        ClientCertificate(format: .pem, certificate: .data(certificate), key: .data(key), keyFormat: .pem, passphrase: passphrase)
    }

    /// A PKCS#12 bundle (certificate and key) in a file.
    public static func pkcs12(file: String, passphrase: String? = nil) -> ClientCertificate {
        ClientCertificate(format: .pkcs12, certificate: .file(file), key: nil, keyFormat: .pem, passphrase: passphrase)
    }

    /// A PKCS#12 bundle (certificate and key) in memory.
    public static func pkcs12(data: Data, passphrase: String? = nil) -> ClientCertificate {
        ClientCertificate(format: .pkcs12, certificate: .data(data), key: nil, keyFormat: .pem, passphrase: passphrase)
    }

    /// Names the sources, never the passphrase.
    public var description: String {
        func name(_ source: Source) -> String {
            switch source {
            case .file(let path): path
            case .data(let data): "\(data.count) bytes in memory"
            }
        }
        var text = "\(format.rawValue) client certificate \(name(certificate))"
        if let key { text += " with key \(name(key))" }
        if passphrase != nil { text += " (passphrase set)" }
        return text
    }

    /// The ``description``, so that `dump` and the debugger show neither the passphrase nor
    /// the key.
    public var customMirror: Mirror {
        Mirror(self, children: ["certificate": description])
    }

    /// Checks what can be checked before a connection: files readable, data not empty.
    func validate() throws(TrustConfigurationProblem) {
        for source in [certificate] + (key.map { [$0] } ?? []) {
            switch source {
            case .file(let path):
                guard FileManager.default.isReadableFile(atPath: path) else {
                    throw TrustConfigurationProblem("cannot read the client certificate or key file \(path)")
                }
            case .data(let data):
                guard !data.isEmpty else { throw TrustConfigurationProblem("the client certificate or key data is empty") }
            }
        }
        if let passphrase, passphrase.contains("\0") {
            throw TrustConfigurationProblem("the client key passphrase contains a NUL character")
        }
    }
}
