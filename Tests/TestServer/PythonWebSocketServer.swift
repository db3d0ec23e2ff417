import Foundation
import Glibc

/// A Python WebSocket server from `Scripts/`: `websocket_echo_server.py`, written with the
/// `websockets` library from PyPI (a server no one here wrote, for the everyday path over ws and
/// wss; `scripts/install-deps.sh --tests` installs it), or `websocket_fault_server.py`, which
/// breaks the protocol on purpose. Started with ``SpawnedProcess``; ends when ``stop()`` closes
/// its standard input.
public final class PythonWebSocketServer: Sendable {
    /// The port it listens on, on 127.0.0.1.
    public var port: Int { server.port }
    private let server: ScriptServerProcess

    /// `python3` as PATH finds it (pyenv's, where pyenv is set up), through `env`.
    static let envPath = "/usr/bin/env"

    private init(server: ScriptServerProcess) {
        self.server = server
    }

    /// Starts the server; with `certificates`, it serves wss with them.
    public static func start(
        script name: String = "websocket_echo_server.py", certificates: TestCertificates? = nil,
        unixSocketPath: String? = nil
    ) async throws -> PythonWebSocketServer {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Scripts/\(name)").path
        var arguments = ["python3", script]
        if let certificates { arguments += ["--cert", certificates.certificateChainPath, "--key", certificates.privateKeyPath] }
        if let unixSocketPath { arguments += ["--unix", unixSocketPath] }
        let server = try await ScriptServerProcess.start(
            executable: envPath, arguments: arguments,
            hint: "the Python websockets server did not start; is `websockets` installed (scripts/install-deps.sh --tests)?")
        return PythonWebSocketServer(server: server)
    }

    /// `ws://127.0.0.1:PORT` + `path`, or wss.
    public func url(_ path: String, secure: Bool = false) -> String {
        "\(secure ? "wss" : "ws")://127.0.0.1:\(port)\(path)"
    }

    /// Stops the server and waits for it to exit.
    public func stop() async {
        await server.stop()
    }
}
