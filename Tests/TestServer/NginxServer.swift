import Foundation
import Glibc

/// A local nginx serving HTTPS with HTTP/2 (and optionally plain HTTP/1.1) on random loopback
/// ports, with a freshly generated certificate, for TLS, pinning and HTTP/2 tests.
///
/// nginx runs in the foreground as one process (`daemon off; master_process off;`) under a
/// temporary prefix directory, which ``stop()`` removes. It is killed when ``stop()`` is called,
/// when the server object is released, or when the test process dies (see `NginxProcess`). Besides the files under the document
/// root, it answers these fixed locations:
/// - `/small`: `hello from nginx\n` (`text/plain`)
/// - `/json`: `{"ok":true,"server":"nginx"}` (`application/json`)
/// - `/no-content`: an empty 204
/// - `/request-headers`: `proxy-authorization=[…] authorization=[…]`, the fields as received
/// - `/tls-session`: `r` when the request's TLS session was resumed, `.` when it was new
/// - `/hsts`, `/hsts-subdomains`, `/hsts-clear`: the request's scheme, with a
///   `Strict-Transport-Security` of `max-age=3600`, `max-age=3600; includeSubDomains`, `max-age=0`
/// - `/scheme`: `https` or `http`, as the request arrived; `/redirect-to-plain`: a 302 to
///   `http://HOST:PORT/scheme`, the same host and port
/// - `/alt-svc`, `/alt-svc-forever`, `/alt-svc-elsewhere`, `/alt-svc-clear`, `/protocol`:
///   `PORT PROTOCOL` (such as `8443 HTTP/2.0`), with an `Alt-Svc` field pointing at the HTTP/2
///   ``port`` (see `NginxConfiguration`); ``http1Port`` is an HTTPS origin speaking HTTP/1.1 only
/// - any `fixedResponses` given to ``start(documentRoot:plainHTTP:fixedResponses:)``.
public final class NginxServer: Sendable {
    /// The nginx executable used.
    public static let nginxPath = "/usr/sbin/nginx"

    /// Whether nginx and openssl are installed, so that ``start(documentRoot:plainHTTP:fixedResponses:)``
    /// can work.
    public static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: nginxPath)
            && FileManager.default.isExecutableFile(atPath: TestCertificates.opensslPath)
    }

    /// The HTTPS (HTTP/2 and HTTP/1.1 via ALPN) port.
    public let port: Int
    /// `https://localhost:PORT`.
    public let baseURL: URL
    /// `https://127.0.0.1:PORT` (the certificate is valid for this too).
    public let ipBaseURL: URL
    /// An HTTPS port that speaks HTTP/1.1 only, when started with `http1Origin: true`.
    public let http1Port: Int?
    /// The plain HTTP/1.1 port, when started with `plainHTTP: true`.
    public let plainPort: Int?
    /// `http://127.0.0.1:PLAINPORT`, when started with `plainHTTP: true`.
    public let plainBaseURL: URL?
    /// The certificates nginx presents, and the CA to trust.
    public let certificates: TestCertificates
    /// The temporary directory holding the configuration, certificates and logs.
    public let prefixDirectory: URL
    /// The directory served at `/`.
    public let documentRoot: URL

    /// The CA certificate (PEM) to trust, such as curl's `--cacert`.
    public var caCertificatePath: String { certificates.caCertificatePath }

    /// The server public key pin, `sha256//BASE64`, such as curl's `--pinnedpubkey`.
    public var publicKeyPin: String { certificates.publicKeyPin }

    private let instance: NginxInstance

    private init(
        instance: NginxInstance, port: Int, plainPort: Int?, http1Port: Int?, certificates: TestCertificates,
        prefixDirectory: URL, documentRoot: URL
    ) throws {
        guard let baseURL = URL(string: "https://localhost:\(port)"),
            let ipBaseURL = URL(string: "https://127.0.0.1:\(port)")
        else { throw TestServerError("cannot form URLs for port \(port)") }
        self.instance = instance
        self.port = port
        self.baseURL = baseURL
        self.ipBaseURL = ipBaseURL
        self.plainPort = plainPort
        self.http1Port = http1Port
        self.plainBaseURL = plainPort.flatMap { URL(string: "http://127.0.0.1:\($0)") }
        self.certificates = certificates
        self.prefixDirectory = prefixDirectory
        self.documentRoot = documentRoot
    }

    /// The URL of `pathAndQuery` (such as `/small`) on ``baseURL``.
    public func url(_ pathAndQuery: String) -> URL {
        let suffix = pathAndQuery.hasPrefix("/") ? pathAndQuery : "/" + pathAndQuery
        return URL(string: baseURL.absoluteString + suffix) ?? baseURL.appendingPathComponent(suffix)
    }

    /// Starts nginx.
    ///
    /// - Parameters:
    ///   - documentRoot: The directory served at `/`; when `nil`, an empty one in the prefix.
    ///   - plainHTTP: Whether to also listen for plain HTTP/1.1 on another port.
    ///   - http1Origin: Whether to also listen for HTTPS speaking HTTP/1.1 only on another port.
    ///   - fixedResponses: Extra exact paths (such as `/hello`) answered with a fixed
    ///     `text/plain` body.
    /// - Throws: ``TestServerError`` if nginx or openssl is missing, a path is invalid, or nginx
    ///   fails to start (the message includes its error log).
    public static func start(
        documentRoot: URL? = nil, plainHTTP: Bool = false, http1Origin: Bool = false, fixedResponses: [String: String] = [:]
    ) async throws -> NginxServer {
        guard FileManager.default.isExecutableFile(atPath: nginxPath) else {
            throw TestServerError("nginx is not installed at \(nginxPath) (apt-get install nginx)")
        }
        guard FileManager.default.isExecutableFile(atPath: TestCertificates.opensslPath) else {
            throw TestServerError("openssl is not installed at \(TestCertificates.opensslPath) (apt-get install openssl)")
        }
        let prefix = FileManager.default.temporaryDirectory
            .appendingPathComponent("curlew-nginx-\(UUID().uuidString)", isDirectory: true)
        do {
            for sub in ["logs", "tmp", "fixed", "www", "tls"] {
                try FileManager.default.createDirectory(
                    at: prefix.appendingPathComponent(sub), withIntermediateDirectories: true)
            }
        } catch {
            throw TestServerError("cannot create \(prefix.path): \(error)")
        }
        do {
            let certificates = try await TestCertificates.generate(in: prefix.appendingPathComponent("tls"))
            let root = documentRoot ?? prefix.appendingPathComponent("www")
            guard NginxConfiguration.isSafe(path: root.path) else {
                throw TestServerError("the document root \(root.path) contains characters nginx cannot take")
            }
            let fixed = try writeFixedResponses(fixedResponses, in: prefix.appendingPathComponent("fixed"))
            let portCount = 1 + (plainHTTP ? 1 : 0) + (http1Origin ? 1 : 0)
            let instance = try await NginxInstance.start(prefix: prefix, portCount: portCount) { ports in
                NginxConfiguration(
                    prefix: prefix, root: root, port: ports[0], plainPort: plainHTTP ? ports[1] : nil,
                    http1Port: http1Origin ? ports[portCount - 1] : nil, certificates: certificates, fixedLocations: fixed
                ).text
            }
            return try NginxServer(
                instance: instance, port: instance.ports[0], plainPort: plainHTTP ? instance.ports[1] : nil,
                http1Port: http1Origin ? instance.ports[portCount - 1] : nil,
                certificates: certificates, prefixDirectory: prefix, documentRoot: root)
        } catch {
            try? FileManager.default.removeItem(at: prefix)
            throw error
        }
    }

    /// Stops nginx (SIGKILL; see `NginxProcess`) and removes the prefix directory. Calling it
    /// again does nothing.
    public func stop() async {
        await instance.stop()
    }

    // MARK: Starting

    /// Writes the fixed response bodies (built-in and custom) to files in `directory`.
    private static func writeFixedResponses(
        _ responses: [String: String], in directory: URL
    ) throws -> [NginxConfiguration.FixedLocation] {
        var entries: [(location: String, body: String, type: String)] = [
            ("/small", "hello from nginx\n", "text/plain"),
            ("/json", "{\"ok\":true,\"server\":\"nginx\"}", "application/json"),
        ]
        for (location, body) in responses.sorted(by: { $0.key < $1.key }) {
            let forbidden = ";{}\"'\\$#".unicodeScalars
            let allowed =
                location.hasPrefix("/")
                && location.unicodeScalars.allSatisfy { scalar in
                    scalar.value > 0x20 && scalar.value < 0x7F && !forbidden.contains(scalar)
                }
            guard allowed else {
                throw TestServerError(
                    "fixed response path \(location) must start with / and contain no spaces or ;{}\"'\\$#")
            }
            entries.append((location, body, "text/plain"))
        }
        do {
            return try entries.enumerated().map { index, entry in
                let file = directory.appendingPathComponent("response-\(index)").path
                try entry.body.write(toFile: file, atomically: true, encoding: .utf8)
                return NginxConfiguration.FixedLocation(location: entry.location, file: file, contentType: entry.type)
            }
        } catch {
            throw TestServerError("cannot write fixed responses in \(directory.path): \(error)")
        }
    }

    /// Starts nginx with the configuration `text` in `prefix` and waits until `ports` accept
    /// connections.
    static func launch(text: String, prefix: URL, ports: [Int]) async throws -> NginxProcess {
        let configURL = prefix.appendingPathComponent("nginx.conf")
        let errorLog = prefix.appendingPathComponent("logs/error.log")
        let outputURL = prefix.appendingPathComponent("logs/stderr.log")
        do {
            try text.write(to: configURL, atomically: true, encoding: .utf8)
            try Data().write(to: outputURL)
        } catch {
            throw TestServerError("cannot write the nginx configuration in \(prefix.path): \(error)")
        }
        let output = try FileHandle(forWritingTo: outputURL)
        defer { try? output.close() }
        let process = try NginxProcess(
            nginx: nginxPath, arguments: ["-p", prefix.path, "-c", configURL.path, "-e", errorLog.path],
            output: output.fileDescriptor)
        for _ in 0..<500 {
            if !process.isRunning {
                let log = [outputURL, errorLog].compactMap { try? String(contentsOf: $0, encoding: .utf8) }
                    .joined(separator: "\n")
                throw TestServerError(
                    "nginx exited with status \(process.exitStatus ?? -1) while starting: \(log)")
            }
            if ports.allSatisfy(canConnect(port:)) {
                return process
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        await process.kill()
        throw TestServerError("nginx did not listen on \(ports) within 10 seconds")
    }

    /// A port that was free on 127.0.0.1 a moment ago.
    static func freeLoopbackPort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestServerError("socket() failed: errno \(errno)") }
        defer { close(descriptor) }
        var address = loopbackAddress(port: 0)
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw TestServerError("bind() failed: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getsockname(descriptor, $0, &length)
            }
        }
        guard named == 0 else { throw TestServerError("getsockname() failed: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    static func canConnect(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = loopbackAddress(port: UInt16(port))
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return result == 0
    }

    private static func loopbackAddress(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        return address
    }
}
