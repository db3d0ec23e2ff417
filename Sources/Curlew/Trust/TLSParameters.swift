/// The TLS parameters a ``TrustPolicy`` may narrow: cipher suites, key-exchange groups and
/// OCSP stapling. Nil (or false) keeps libcurl's and OpenSSL's defaults.
public struct TLSParameters: Sendable, Hashable {
    /// Cipher suites for TLS 1.2, in OpenSSL's names (`ECDHE-RSA-AES128-GCM-SHA256`), in order
    /// of preference (`CURLOPT_SSL_CIPHER_LIST`, curl's `--ciphers`).
    public var cipherSuites: [String]?
    /// Cipher suites for TLS 1.3 (`TLS_AES_128_GCM_SHA256`), in order of preference
    /// (`CURLOPT_TLS13_CIPHERS`, curl's `--tls13-ciphers`).
    public var tls13CipherSuites: [String]?
    /// Key-exchange groups (curves), in OpenSSL's names (`X25519`, `P-256`, `P-384`), in order
    /// of preference (`CURLOPT_SSL_EC_CURVES`, curl's `--curves`).
    public var keyExchangeGroups: [String]?
    /// Whether the server must staple a good OCSP response for its certificate
    /// (`CURLOPT_SSL_VERIFYSTATUS`, curl's `--cert-status`); a server that staples none fails
    /// with ``CurlewError/Kind/tlsFailure``.
    public var requiresOCSPStapling = false

    /// libcurl's defaults.
    public init() {}

    /// Why these parameters cannot be given to libcurl, or nil: an empty list, or a name that
    /// is empty or holds `:`, `,`, whitespace or a control character (libcurl joins names with
    /// `:`, so such a name would read as others).
    var problem: String? {
        for (label, names) in [("cipherSuites", cipherSuites), ("tls13CipherSuites", tls13CipherSuites), ("keyExchangeGroups", keyExchangeGroups)] {
            guard let names else { continue }
            if names.isEmpty { return "\(label) is empty; use nil for the defaults" }
            for name in names where name.isEmpty || name.unicodeScalars.contains(where: { $0 == ":" || $0 == "," || $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F }) {
                return "\(label) holds \(String(name.prefix(60)).debugDescription), which is not one OpenSSL name"
            }
        }
        return nil
    }

    /// The lists as libcurl takes them.
    var cipherList: String? { cipherSuites?.joined(separator: ":") }
    var tls13CipherList: String? { tls13CipherSuites?.joined(separator: ":") }
    var groupList: String? { keyExchangeGroups?.joined(separator: ":") }
}
