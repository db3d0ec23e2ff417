import Foundation

/// Certificates for trust-policy and mTLS tests, made with the `openssl` tool in a directory:
/// a CA and, signed by it, a good leaf, an expired leaf and a leaf for another host; a
/// self-signed leaf; and a client CA with a client certificate in PEM (with an encrypted
/// key), DER and PKCS#12, plus a stranger's client certificate the server does not trust.
///
/// For tests of which chain a pin is matched against, a second hierarchy: a root CA, an
/// intermediate CA it signed, and a leaf the intermediate signed (`chain-root`, `chain-int`,
/// `chained`), served whole, as a leaf alone, and appended to the first CA's good chain.
///
/// Server leaves name `localhost` and `127.0.0.1` (except the wrong-host one, which names
/// `wrong.example`). Keys are ECDSA P-256.
public struct TrustCertificates: Sendable {
    public let directory: URL
    /// The passphrase of the client key files and the PKCS#12 bundle.
    public static let clientPassphrase = "cl1ent-p4ss"

    public func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    public var caCertificate: String { path("ca.pem") }
    /// Server certificate files (leaf followed by the CA where the CA signed it) and keys.
    public var goodChain: String { path("good-chain.pem") }
    public var goodLeaf: String { path("good.pem") }
    public var goodLeafDER: String { path("good.der") }
    public var goodKey: String { path("good.key") }
    public var expiredChain: String { path("expired-chain.pem") }
    public var expiredKey: String { path("expired.key") }
    public var wrongHostChain: String { path("wronghost-chain.pem") }
    public var wrongHostKey: String { path("wronghost.key") }
    public var selfSigned: String { path("selfsigned.pem") }
    public var selfSignedKey: String { path("selfsigned.key") }
    /// The second hierarchy: its root CA, its intermediate CA, and its leaf (each PEM).
    public var chainRoot: String { path("chain-root.pem") }
    public var chainIntermediate: String { path("chain-int.pem") }
    public var chainedLeaf: String { path("chained.pem") }
    public var chainedKey: String { path("chained.key") }
    /// What the chain servers send: the leaf and its intermediate; the leaf alone; and the good
    /// leaf and its CA followed by every certificate of the second hierarchy, none of which is
    /// on the good leaf's path (so a pin of any of them must not match).
    public var chainedWithIntermediate: String { path("chained-with-intermediate.pem") }
    public var chainedLeafOnly: String { path("chained.pem") }
    public var goodChainWithStrangers: String { path("good-chain-with-strangers.pem") }
    /// The CA nginx trusts for client certificates.
    public var clientCA: String { path("client-ca.pem") }
    /// The client certificate (PEM), its key encrypted with ``clientPassphrase`` (PEM), the
    /// same key unencrypted, both in DER, and the PKCS#12 bundle.
    public var clientCertificate: String { path("client.pem") }
    public var clientKeyEncrypted: String { path("client-encrypted.key") }
    public var clientKey: String { path("client.key") }
    public var clientCertificateDER: String { path("client.der") }
    public var clientKeyDER: String { path("client-key.der") }
    public var clientPKCS12: String { path("client.p12") }
    /// A client certificate from a CA nginx does not trust, and its key.
    public var strangerCertificate: String { path("stranger.pem") }
    public var strangerKey: String { path("stranger.key") }

    /// openssl's fingerprint of a certificate (`good`, `selfsigned`, `chained`; `sha256` or
    /// `sha1`), as it prints it: uppercase hex pairs joined by colons.
    public func fingerprint(_ name: String, _ digest: String) throws -> String {
        let text = try String(contentsOfFile: path("\(name).\(digest).txt"), encoding: .utf8)
        guard let equals = text.firstIndex(of: "=") else { throw TestServerError("no fingerprint in \(text)") }
        return text[text.index(after: equals)...].trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The SHA-256 of a certificate's SubjectPublicKeyInfo, as openssl computed it (`good`,
    /// `selfsigned`, `ca`, `chained`, `chain-int`, `chain-root`).
    public func publicKeyDigest(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: path("\(name)-spki.sha256")))
    }

    /// That digest as a public key pin, `sha256//BASE64`.
    public func publicKeyPin(_ name: String) throws -> String {
        "sha256//" + (try publicKeyDigest(name)).base64EncodedString()
    }

    /// A certificate file's certificate in DER.
    public func der(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: path("\(name).der")))
    }

    /// Generates everything in `directory` (which must exist).
    public static func generate(in directory: URL) async throws -> TrustCertificates {
        let certificates = TrustCertificates(directory: directory)
        try await certificates.make()
        return certificates
    }

    private func openssl(_ arguments: [String]) async throws {
        try await ProcessRunner.run(TestCertificates.opensslPath, arguments, in: directory)
    }

    private func write(_ text: String, to name: String) throws {
        do {
            try text.write(toFile: path(name), atomically: true, encoding: .utf8)
        } catch {
            throw TestServerError("cannot write \(path(name)): \(error)")
        }
    }

    private func concatenate(_ names: [String], into name: String) throws {
        do {
            var data = Data()
            for part in names { data += try Data(contentsOf: URL(fileURLWithPath: path(part))) }
            try data.write(to: URL(fileURLWithPath: path(name)))
        } catch {
            throw TestServerError("cannot write \(path(name)): \(error)")
        }
    }

    private static let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]

    private func makeCA(_ name: String, subject: String) async throws {
        try await openssl(
            ["req", "-x509"] + Self.curve + [
                "-keyout", path("\(name).key"), "-out", path("\(name).pem"), "-days", "7", "-subj", subject,
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ])
    }

    private func makeRequest(_ name: String, subject: String) async throws {
        try await openssl(["req", "-new"] + Self.curve + ["-keyout", path("\(name).key"), "-out", path("\(name).csr"), "-subj", subject])
    }

    /// Root → intermediate → leaf, and the three files the chain servers send.
    private func makeChainHierarchy() async throws {
        try write("basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\n", to: "intermediate.ext")
        try await makeCA("chain-root", subject: "/CN=Curlew Chain Test Root")
        try await makeRequest("chain-int", subject: "/CN=Curlew Chain Test Intermediate")
        try await openssl([
            "x509", "-req", "-in", path("chain-int.csr"), "-CA", path("chain-root.pem"), "-CAkey", path("chain-root.key"),
            "-CAcreateserial", "-out", path("chain-int.pem"), "-days", "7", "-extfile", path("intermediate.ext"),
        ])
        try await makeRequest("chained", subject: "/CN=localhost")
        try await openssl([
            "x509", "-req", "-in", path("chained.csr"), "-CA", path("chain-int.pem"), "-CAkey", path("chain-int.key"),
            "-CAcreateserial", "-out", path("chained.pem"), "-days", "7", "-extfile", path("server.ext"),
        ])
        try concatenate(["chained.pem", "chain-int.pem"], into: "chained-with-intermediate.pem")
        try concatenate(["good.pem", "ca.pem", "chain-int.pem", "chain-root.pem", "chained.pem"], into: "good-chain-with-strangers.pem")
    }

    private func make() async throws {
        try write("subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\nbasicConstraints=critical,CA:FALSE\n", to: "server.ext")
        try write("subjectAltName=DNS:wrong.example\nextendedKeyUsage=serverAuth\nbasicConstraints=critical,CA:FALSE\n", to: "wronghost.ext")
        try write("extendedKeyUsage=clientAuth\nbasicConstraints=critical,CA:FALSE\n", to: "client.ext")
        try await makeCA("ca", subject: "/CN=Curlew Trust Test CA")
        try await makeCA("client-ca", subject: "/CN=Curlew Client Test CA")
        try await makeCA("stranger-ca", subject: "/CN=Curlew Stranger CA")

        for (name, subject, ext) in [("good", "/CN=localhost", "server.ext"), ("wronghost", "/CN=wrong.example", "wronghost.ext")] {
            try await makeRequest(name, subject: subject)
            try await openssl([
                "x509", "-req", "-in", path("\(name).csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"),
                "-CAcreateserial", "-out", path("\(name).pem"), "-days", "7", "-extfile", path(ext),
            ])
            try concatenate(["\(name).pem", "ca.pem"], into: "\(name)-chain.pem")
        }

        // An expired leaf: `openssl ca` is the one tool of OpenSSL 3.0 that takes past dates.
        try await makeRequest("expired", subject: "/CN=localhost")
        try write("", to: "index.txt")
        try write("1000\n", to: "serial")
        try write("""
            [ca]
            default_ca = test
            [test]
            database = \(path("index.txt"))
            serial = \(path("serial"))
            new_certs_dir = \(directory.path)
            certificate = \(path("ca.pem"))
            private_key = \(path("ca.key"))
            default_md = sha256
            policy = anything
            copy_extensions = none
            x509_extensions = server
            [anything]
            commonName = supplied
            [server]
            subjectAltName = DNS:localhost,IP:127.0.0.1
            extendedKeyUsage = serverAuth
            basicConstraints = critical,CA:FALSE

            """, to: "ca.cnf")
        try await openssl([
            "ca", "-batch", "-config", path("ca.cnf"), "-in", path("expired.csr"), "-out", path("expired.pem"),
            "-startdate", "20200101000000Z", "-enddate", "20200201000000Z", "-notext",
        ])
        try concatenate(["expired.pem", "ca.pem"], into: "expired-chain.pem")

        try await openssl(
            ["req", "-x509"] + Self.curve + [
                "-keyout", path("selfsigned.key"), "-out", path("selfsigned.pem"), "-days", "7", "-subj", "/CN=localhost",
                "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            ])

        for (name, ca) in [("client", "client-ca"), ("stranger", "stranger-ca")] {
            try await makeRequest(name, subject: "/CN=Curlew \(name)")
            try await openssl([
                "x509", "-req", "-in", path("\(name).csr"), "-CA", path("\(ca).pem"), "-CAkey", path("\(ca).key"),
                "-CAcreateserial", "-out", path("\(name).pem"), "-days", "7", "-extfile", path("client.ext"),
            ])
        }
        try await makeChainHierarchy()
        for name in ["good", "selfsigned", "chained"] {
            for digest in ["sha256", "sha1"] {
                try await openssl(["x509", "-in", path("\(name).pem"), "-noout", "-fingerprint", "-\(digest)", "-out", path("\(name).\(digest).txt")])
            }
        }
        for name in ["good", "selfsigned", "ca", "chained", "chain-int", "chain-root"] {
            try await openssl(["x509", "-in", path("\(name).pem"), "-noout", "-pubkey", "-out", path("\(name)-pub.pem")])
            try await openssl(["pkey", "-pubin", "-in", path("\(name)-pub.pem"), "-outform", "DER", "-out", path("\(name)-spki.der")])
            try await openssl(["dgst", "-sha256", "-binary", "-out", path("\(name)-spki.sha256"), path("\(name)-spki.der")])
            try await openssl(["x509", "-in", path("\(name).pem"), "-outform", "DER", "-out", path("\(name).der")])
        }
        let passphrase = "pass:\(Self.clientPassphrase)"
        try await openssl(["pkey", "-in", path("client.key"), "-out", path("client-encrypted.key"), "-aes256", "-passout", passphrase])
        try await openssl(["x509", "-in", path("client.pem"), "-outform", "DER", "-out", path("client.der")])
        try await openssl(["pkey", "-in", path("client.key"), "-outform", "DER", "-out", path("client-key.der")])
        try await openssl([
            "pkcs12", "-export", "-in", path("client.pem"), "-inkey", path("client.key"), "-out", path("client.p12"),
            "-passout", passphrase,
        ])
    }
}
