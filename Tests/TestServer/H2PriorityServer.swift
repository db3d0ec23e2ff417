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
    public let port: Int
    private let process: SpawnedProcess
    private let input: Int32

    static let python = "/usr/bin/python3"

    /// Whether Debian's Python has the `h2` library.
    public static var isAvailable: Bool {
        guard FileManager.default.isExecutableFile(atPath: python) else { return false }
        return FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/h2/__init__.py")
    }

    private init(port: Int, process: SpawnedProcess, input: Int32) {
        self.port = port
        self.process = process
        self.input = input
    }

    /// Starts the server and waits until it listens.
    public static func start() async throws -> H2PriorityServer {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Scripts/h2_priority_server.py").path
        var inputEnds: [Int32] = [-1, -1]
        var outputEnds: [Int32] = [-1, -1]
        guard pipe(&inputEnds) == 0 else { throw TestServerError("pipe() failed: errno \(errno)") }
        guard pipe(&outputEnds) == 0 else {
            close(inputEnds[0]); close(inputEnds[1])
            throw TestServerError("pipe() failed: errno \(errno)")
        }
        for descriptor in inputEnds + outputEnds { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        let process: SpawnedProcess
        do {
            process = try SpawnedProcess(
                executable: python, arguments: [script],
                input: .descriptor(inputEnds[0]), output: .descriptor(outputEnds[1]), error: .nullDevice)
        } catch {
            for descriptor in inputEnds + outputEnds { close(descriptor) }
            throw error
        }
        close(inputEnds[0])
        close(outputEnds[1])
        let line = await PythonWebSocketServer.readLine(outputEnds[0])
        close(outputEnds[0])
        guard line.hasPrefix("PORT "), let port = Int(line.dropFirst(5)) else {
            close(inputEnds[1])
            process.send(SIGKILL)
            _ = await process.waitForExit()
            throw TestServerError("the h2 priority server did not start (said '\(line)'); is python3-h2 installed (scripts/install-deps.sh --tests)?")
        }
        return H2PriorityServer(port: port, process: process, input: inputEnds[1])
    }

    /// `http://127.0.0.1:PORT` + `path`.
    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)") ?? URL(fileURLWithPath: "/")
    }

    /// Stops the server and waits for it to exit.
    public func stop() async {
        close(input)
        process.send(SIGTERM)
        _ = await process.waitForExit()
    }
}
