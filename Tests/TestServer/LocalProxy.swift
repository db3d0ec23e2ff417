import Foundation
import Glibc

/// A real proxy from Debian's packages on a loopback port, for proxy tests: tinyproxy (an
/// HTTP proxy with `CONNECT`) or microsocks (SOCKS5), each with or without credentials.
public final class LocalProxy: Sendable {
    /// Which proxy program to run.
    public enum Program: Sendable {
        /// tinyproxy: HTTP proxy, absolute-form requests and `CONNECT` tunnels; Basic credentials.
        case tinyproxy
        /// microsocks: SOCKS5, with username/password authentication (RFC 1929).
        case microsocks
    }

    /// The loopback port the proxy listens on.
    public let port: Int
    private let process: SpawnedProcess
    private let directory: URL

    private init(port: Int, process: SpawnedProcess, directory: URL) {
        self.port = port
        self.process = process
        self.directory = directory
    }

    /// Starts `program` on 127.0.0.1, requiring `username`/`password` when given, and waits
    /// until it accepts connections. Throws if the program is not installed
    /// (`scripts/install-deps.sh --tests` installs both) or does not start.
    ///
    /// `connectPorts` (tinyproxy only) lists the ports a `CONNECT` may reach; tinyproxy refuses
    /// a tunnel to any other with `403 Access violation`. Nil allows every port.
    public static func start(
        _ program: Program, username: String? = nil, password: String? = nil, allowingConnectTo connectPorts: [Int]? = nil
    ) async throws -> LocalProxy {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-proxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        do {
            let (port, process) = try await SpawnedProcess.startListening("\(program)") { port in
                try launch(
                    program, port: port, username: username, password: password, connectPorts: connectPorts, in: directory)
            }
            return LocalProxy(port: port, process: process, directory: directory)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    private static func launch(
        _ program: Program, port: Int, username: String?, password: String?, connectPorts: [Int]?, in directory: URL
    ) throws -> SpawnedProcess {
        switch program {
        case .tinyproxy:
            var lines = [
                "Port \(port)", "Listen 127.0.0.1", "Timeout 30", "MaxClients 64", "LogLevel Critical",
                "Allow 127.0.0.1",
            ]
            if let username, let password { lines.append("BasicAuth \(username) \(password)") }
            lines += (connectPorts ?? []).map { "ConnectPort \($0)" }
            let configuration = directory.appendingPathComponent("tinyproxy-\(port).conf")
            try (lines.joined(separator: "\n") + "\n").write(to: configuration, atomically: true, encoding: .utf8)
            return try SpawnedProcess(executable: "/usr/bin/tinyproxy", arguments: ["-d", "-c", configuration.path])
        case .microsocks:
            var arguments = ["-i", "127.0.0.1", "-p", String(port)]
            if let username, let password { arguments += ["-u", username, "-P", password] }
            return try SpawnedProcess(executable: "/usr/bin/microsocks", arguments: arguments)
        }
    }

    /// Stops the proxy and removes its files.
    public func stop() async {
        process.send(SIGTERM)
        _ = await process.waitForExit()
        try? FileManager.default.removeItem(at: directory)
    }
}
