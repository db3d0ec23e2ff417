import Foundation

/// A throwaway certificate authority and a server certificate it signed, made with the
/// `openssl` command-line tool, for TLS tests on loopback.
///
/// The server certificate has CN `localhost` and subjectAltName `DNS:localhost, IP:127.0.0.1`,
/// so it verifies for both `https://localhost:…` and `https://127.0.0.1:…` when the CA is trusted.
/// Keys are ECDSA P-256.
public struct TestCertificates: Sendable {
    /// The CA certificate (PEM) that clients should trust.
    public let caCertificatePath: String
    /// The server (leaf) certificate (PEM).
    public let certificatePath: String
    /// The server certificate followed by the CA certificate (PEM), as a server presents them.
    public let certificateChainPath: String
    /// The server's private key (PEM, unencrypted).
    public let privateKeyPath: String
    /// The pin of the server certificate's public key, in curl's `CURLOPT_PINNEDPUBLICKEY`
    /// form: `sha256//` + base64 of the SHA-256 of the DER SubjectPublicKeyInfo.
    public let publicKeyPin: String

    /// The openssl executable used.
    public static let opensslPath = "/usr/bin/openssl"

    /// Generates a CA and a server certificate in `directory` (which must exist).
    /// Throws ``TestServerError`` if openssl is missing or fails.
    public static func generate(in directory: URL) async throws -> TestCertificates {
        let openssl = opensslPath
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try await ProcessRunner.run(
            openssl,
            ["req", "-x509"] + curve + [
                "-keyout", path("ca.key"), "-out", path("ca.pem"), "-days", "7",
                "-subj", "/CN=Curlew Test CA",
                "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ], in: directory)
        try await ProcessRunner.run(
            openssl,
            ["req", "-new"] + curve + [
                "-keyout", path("server.key"), "-out", path("server.csr"), "-subj", "/CN=localhost",
            ], in: directory)
        let extensions = """
            subjectAltName=DNS:localhost,IP:127.0.0.1
            extendedKeyUsage=serverAuth
            basicConstraints=critical,CA:FALSE
            keyUsage=critical,digitalSignature

            """
        do {
            try extensions.write(toFile: path("server.ext"), atomically: true, encoding: .utf8)
        } catch {
            throw TestServerError("cannot write \(path("server.ext")): \(error)")
        }
        try await ProcessRunner.run(
            openssl,
            [
                "x509", "-req", "-in", path("server.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"),
                "-CAcreateserial", "-out", path("server.pem"), "-days", "7", "-extfile", path("server.ext"),
            ], in: directory)
        try await ProcessRunner.run(
            openssl, ["pkey", "-in", path("server.key"), "-pubout", "-outform", "DER", "-out", path("spki.der")],
            in: directory)
        try await ProcessRunner.run(
            openssl, ["dgst", "-sha256", "-binary", "-out", path("spki.sha256"), path("spki.der")], in: directory)

        let digest: Data
        let chain: Data
        do {
            digest = try Data(contentsOf: URL(fileURLWithPath: path("spki.sha256")))
            chain =
                try Data(contentsOf: URL(fileURLWithPath: path("server.pem")))
                + Data(contentsOf: URL(fileURLWithPath: path("ca.pem")))
            try chain.write(to: URL(fileURLWithPath: path("chain.pem")))
        } catch {
            throw TestServerError("cannot read or write the generated certificates in \(directory.path): \(error)")
        }
        guard digest.count == 32 else {
            throw TestServerError("openssl produced a \(digest.count)-byte SHA-256 digest")
        }
        return TestCertificates(
            caCertificatePath: path("ca.pem"),
            certificatePath: path("server.pem"),
            certificateChainPath: path("chain.pem"),
            privateKeyPath: path("server.key"),
            publicKeyPin: "sha256//" + digest.base64EncodedString())
    }
}
