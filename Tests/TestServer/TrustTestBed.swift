import Foundation

/// One nginx with an HTTPS server per certificate of ``TrustCertificates`` — good, expired,
/// wrong host, self-signed — and one that requires a client certificate (mTLS). Three more
/// send other chains than the one a client verifies: a leaf with its intermediate
/// (`intermediateChain`), the same leaf without it (`leafOnly`), and the good chain followed by
/// unrelated certificates (`appendedStrangers`: the second hierarchy's intermediate, root and
/// leaf, see ``TrustCertificates``). Every server
/// answers `ok` (the mTLS one adds the client's subject) and logs each request line it
/// receives to an access log, so tests can prove a request never reached a server.
/// `/to-ip?m=MARK` redirects to `https://127.0.0.1:<same port>/landed-MARK`.
public final class TrustTestBed: Sendable {
    /// The servers, by the certificate they present.
    public enum Server: String, CaseIterable, Sendable {
        case good, expired, wrongHost, selfSigned, mutualTLS, tls12Only
        case intermediateChain, leafOnly, appendedStrangers
    }

    public let certificates: TrustCertificates
    public let prefixDirectory: URL
    private let ports: [Server: Int]
    private let instance: NginxInstance

    private init(certificates: TrustCertificates, instance: NginxInstance) {
        self.certificates = certificates
        self.prefixDirectory = instance.prefixDirectory
        self.ports = Dictionary(uniqueKeysWithValues: zip(Server.allCases, instance.ports))
        self.instance = instance
    }

    public func port(_ server: Server) -> Int { ports[server] ?? 0 }

    /// `https://host:port/path` for `server`; host is `localhost` unless given.
    public func url(_ server: Server, _ path: String = "/", host: String = "localhost") -> URL {
        let suffix = path.hasPrefix("/") ? path : "/" + path
        return URL(string: "https://\(host):\(port(server))\(suffix)") ?? URL(fileURLWithPath: "/")
    }

    /// The request lines nginx received, as `port request-line`, one per request.
    public func receivedRequestLines() -> [String] {
        let log = prefixDirectory.appendingPathComponent("logs/access.log")
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    /// Whether a request whose target contains `marker` reached any server, waiting up to
    /// `timeout` for it: nginx writes a request's log line after sending its response, so a
    /// client can see the response first.
    public func received(_ marker: String, within timeout: Duration = .seconds(5)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            if receivedRequestLines().contains(where: { $0.contains(marker) }) { return true }
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Whether a request whose target contains `marker` reached any server, with certainty:
    /// sends a request to `server` through `curl --insecure` afterwards and waits for its log
    /// line. nginx (one worker) handles requests in the order they arrive and logs each when it
    /// ends, so a `marker` request that had been written would be in the log by then.
    public func receivedBefore(barrierOn server: Server, _ marker: String) async throws -> Bool {
        let barrier = "/barrier-\(UUID().uuidString)"
        _ = try await ChildProcess.run(
            "/usr/bin/curl", ["--silent", "--insecure", "--noproxy", "*", "--output", "/dev/null", "\(url(server, barrier))"],
            in: prefixDirectory)
        guard await received(barrier) else { throw TestServerError("the barrier request \(barrier) never reached nginx") }
        return receivedRequestLines().contains { $0.contains(marker) }
    }

    public static func start() async throws -> TrustTestBed {
        guard NginxServer.isAvailable else { throw TestServerError("nginx is not installed at \(NginxServer.nginxPath)") }
        let prefix = FileManager.default.temporaryDirectory
            .appendingPathComponent("curlew-trust-\(UUID().uuidString)", isDirectory: true)
        do {
            for sub in ["logs", "tmp", "tls"] {
                try FileManager.default.createDirectory(at: prefix.appendingPathComponent(sub), withIntermediateDirectories: true)
            }
        } catch {
            throw TestServerError("cannot create \(prefix.path): \(error)")
        }
        do {
            let certificates = try await TrustCertificates.generate(in: prefix.appendingPathComponent("tls"))
            let instance = try await NginxInstance.start(prefix: prefix, portCount: Server.allCases.count) { ports in
                configuration(prefix: prefix, certificates: certificates, ports: Dictionary(uniqueKeysWithValues: zip(Server.allCases, ports)))
            }
            return TrustTestBed(certificates: certificates, instance: instance)
        } catch {
            try? FileManager.default.removeItem(at: prefix)
            throw error
        }
    }

    /// Stops nginx and removes its directory. Calling it again does nothing.
    public func stop() async {
        await instance.stop()
    }

    private static func configuration(prefix: URL, certificates: TrustCertificates, ports: [Server: Int]) -> String {
        let p = prefix.path
        func server(
            _ kind: Server, chain: String, key: String, extra: String = "", body: String = "ok\\n",
            protocols: String = "TLSv1.2 TLSv1.3"
        ) -> String {
            """
                server {
                    listen 127.0.0.1:\(ports[kind] ?? 0) ssl http2;
                    server_name localhost;
                    ssl_certificate "\(chain)";
                    ssl_certificate_key "\(key)";
                    ssl_protocols \(protocols);
            \(extra)
                    location / { default_type text/plain; return 200 "\(body)"; }
                    location = /to-ip { return 302 "https://127.0.0.1:$server_port/landed-$arg_m"; }
                }

            """
        }
        let c = certificates
        return """
            daemon off;
            master_process off;
            worker_processes 1;
            pid "\(p)/nginx.pid";
            error_log "\(p)/logs/error.log" warn;
            events { worker_connections 256; }
            http {
                log_format lines '$server_port $request';
                access_log "\(p)/logs/access.log" lines;
                client_body_temp_path "\(p)/tmp/body";
                proxy_temp_path "\(p)/tmp/proxy";
                fastcgi_temp_path "\(p)/tmp/fastcgi";
                uwsgi_temp_path "\(p)/tmp/uwsgi";
                scgi_temp_path "\(p)/tmp/scgi";
            \(server(.good, chain: c.goodChain, key: c.goodKey))
            \(server(.expired, chain: c.expiredChain, key: c.expiredKey))
            \(server(.wrongHost, chain: c.wrongHostChain, key: c.wrongHostKey))
            \(server(.selfSigned, chain: c.selfSigned, key: c.selfSignedKey))
            \(server(.mutualTLS, chain: c.goodChain, key: c.goodKey,
                     extra: "        ssl_client_certificate \"\(c.clientCA)\";\n        ssl_verify_client on;",
                     body: "ok $ssl_client_s_dn\\n"))
            \(server(.tls12Only, chain: c.goodChain, key: c.goodKey, body: "ok $ssl_protocol\\n", protocols: "TLSv1.2"))
            \(server(.intermediateChain, chain: c.chainedWithIntermediate, key: c.chainedKey))
            \(server(.leafOnly, chain: c.chainedLeafOnly, key: c.chainedKey))
            \(server(.appendedStrangers, chain: c.goodChainWithStrangers, key: c.goodKey))
            }

            """
    }
}
