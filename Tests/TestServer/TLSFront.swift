import Foundation
import Glibc

/// TLS in front of a plain TCP service on loopback, with stunnel (Debian's `stunnel4`): it
/// accepts TLS on its own port with the given certificate and forwards the plaintext to another
/// port. In front of tinyproxy it makes an HTTPS proxy — TLS to the proxy itself, before any
/// tunnel. (socat's `OPENSSL-LISTEN` was tried first: it sets no session id context, so with
/// client certificates required it refuses every resumed session.)
public final class TLSFront: Sendable {
    /// The executable used (`scripts/install-deps.sh --tests` installs it).
    public static let stunnelPath = "/usr/bin/stunnel4"

    /// Whether stunnel is installed.
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: stunnelPath) }

    /// The loopback port that speaks TLS.
    public let port: Int
    private let process: SpawnedProcess
    private let directory: URL

    private init(port: Int, process: SpawnedProcess, directory: URL) {
        self.port = port
        self.process = process
        self.directory = directory
    }

    /// Starts stunnel on 127.0.0.1, presenting `certificate` (a PEM file: the leaf, then any
    /// intermediates) with its `key`, and forwarding each connection to `target` on 127.0.0.1.
    /// With `clientCA`, a client must present a certificate that CA signed.
    public static func start(
        forwardingTo target: Int, certificate: String, key: String, clientCA: String? = nil
    ) async throws -> TLSFront {
        guard isAvailable else { throw TestServerError("stunnel is not installed at \(stunnelPath) (apt-get install stunnel4)") }
        for path in [certificate, key] + (clientCA.map { [$0] } ?? []) where path.contains(where: { "\n\r".contains($0) }) {
            throw TestServerError("stunnel cannot take the path \(path) in its configuration")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-tls-front-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        do {
            let (port, process) = try await SpawnedProcess.startListening("stunnel") { port in
                // Level 6 logs each handshake as a new or a resumed session (see ``handshakes()``).
                var lines = [
                    "foreground = yes", "pid =", "debug = 6", "output = \(directory.appendingPathComponent("stunnel.log").path)",
                    "[front]", "accept = 127.0.0.1:\(port)", "connect = 127.0.0.1:\(target)", "cert = \(certificate)",
                    "key = \(key)",
                ]
                if let clientCA { lines += ["verifyChain = yes", "CAfile = \(clientCA)"] }
                let configuration = directory.appendingPathComponent("stunnel-\(port).conf")
                try (lines.joined(separator: "\n") + "\n").write(to: configuration, atomically: true, encoding: .utf8)
                return try SpawnedProcess(executable: stunnelPath, arguments: [configuration.path])
            }
            return TLSFront(port: port, process: process, directory: directory)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// The TLS handshakes stunnel completed so far: with a new session, and resuming one.
    public func handshakes() -> (new: Int, resumed: Int) {
        let log = (try? String(contentsOf: directory.appendingPathComponent("stunnel.log"), encoding: .utf8)) ?? ""
        let lines = log.split(separator: "\n")
        return (
            lines.filter { $0.contains("TLS accepted: new session negotiated") }.count,
            lines.filter { $0.contains("TLS accepted: previous session reused") }.count
        )
    }

    /// ``handshakes()`` once there are `total` of them. stunnel logs a handshake before it
    /// forwards a byte, so a client that got its response finds it there; the wait only covers
    /// a slow log write, and ends with an error (a hang) after `timeout`.
    public func handshakes(reaching total: Int, within timeout: Duration = .seconds(10)) async throws -> (new: Int, resumed: Int) {
        let deadline = ContinuousClock.now + timeout
        while true {
            let counted = handshakes()
            if counted.new + counted.resumed >= total { return counted }
            if ContinuousClock.now >= deadline {
                throw TestServerError("hung: stunnel logged \(counted) handshakes, not \(total), within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Stops stunnel (and with it every connection it forwards) and removes its files.
    public func stop() async {
        process.send(SIGTERM)
        _ = await process.waitForExit()
        try? FileManager.default.removeItem(at: directory)
    }
}
