import Foundation
import Glibc

/// An HTTP/2 server without TLS (h2c, prior knowledge) that reports the stream priority each
/// request's HEADERS frame carried on the wire: `Scripts/h2_priority_server.py`, on the Python
/// `h2` library (Debian's python3-h2, so it runs with `/usr/bin/python3`; installed by
/// `scripts/install-deps.sh --tests`). It answers every request with JSON
/// `{"path", "stream", "priority": {"weight", "dependsOn", "exclusive"} or null}`, and closes the
/// connection after each (GOAWAY), so each request comes on a connection of its own.
public final class H2PriorityServer: Sendable {
    /// The TCP port on 127.0.0.1.
    public var port: Int { server.port }
    private let server: ScriptServerProcess

    static let python = "/usr/bin/python3"

    /// Whether Debian's Python has the `h2` library.
    public static var isAvailable: Bool {
        guard FileManager.default.isExecutableFile(atPath: python) else { return false }
        return FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/h2/__init__.py")
    }

    private init(server: ScriptServerProcess) {
        self.server = server
    }

    /// Starts the server and waits until it listens.
    public static func start() async throws -> H2PriorityServer {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Scripts/h2_priority_server.py").path
        let server = try await ScriptServerProcess.start(
            executable: python, arguments: [script],
            hint: "the h2 priority server did not start; is python3-h2 installed (scripts/install-deps.sh --tests)?")
        return H2PriorityServer(server: server)
    }

    /// `http://127.0.0.1:PORT` + `path`.
    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)") ?? URL(fileURLWithPath: "/")
    }

    /// Stops the server and waits for it to exit.
    public func stop() async {
        await server.stop()
    }
}
