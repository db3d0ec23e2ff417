import Foundation
import Glibc

/// A Python WebSocket server from `Scripts/`: `websocket_echo_server.py`, written with the
/// `websockets` library from PyPI (a server no one here wrote, for the everyday path over ws and
/// wss; `scripts/install-deps.sh --tests` installs it), or `websocket_fault_server.py`, which
/// breaks the protocol on purpose. Started with ``SpawnedProcess``; ends when ``stop()`` closes
/// its standard input.
public final class PythonWebSocketServer: Sendable {
    /// The port it listens on, on 127.0.0.1.
    public let port: Int
    private let process: SpawnedProcess
    private let input: Int32

    /// `python3` as PATH finds it (pyenv's, where pyenv is set up), through `env`.
    static let envPath = "/usr/bin/env"

    private init(port: Int, process: SpawnedProcess, input: Int32) {
        self.port = port
        self.process = process
        self.input = input
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
                executable: envPath, arguments: arguments,
                input: .descriptor(inputEnds[0]), output: .descriptor(outputEnds[1]), error: .nullDevice)
        } catch {
            for descriptor in inputEnds + outputEnds { close(descriptor) }
            throw error
        }
        close(inputEnds[0])
        close(outputEnds[1])
        let line = await readLine(outputEnds[0])
        close(outputEnds[0])
        guard line.hasPrefix("PORT "), let port = Int(line.dropFirst(5)) else {
            close(inputEnds[1])
            process.send(SIGKILL)
            _ = await process.waitForExit()
            throw TestServerError("the Python websockets server did not start (said '\(line)'); is `websockets` installed (scripts/install-deps.sh --tests)?")
        }
        return PythonWebSocketServer(port: port, process: process, input: inputEnds[1])
    }

    /// `ws://127.0.0.1:PORT` + `path`, or wss.
    public func url(_ path: String, secure: Bool = false) -> String {
        "\(secure ? "wss" : "ws")://127.0.0.1:\(port)\(path)"
    }

    /// Stops the server and waits for it to exit.
    public func stop() async {
        close(input)
        process.send(SIGTERM)
        _ = await process.waitForExit()
    }

    /// The first line of `descriptor`, read on a thread of its own (the read blocks).
    static func readLine(_ descriptor: Int32) async -> String {
        await withCheckedContinuation { continuation in
            let reader = Thread {
                var bytes: [UInt8] = []
                var byte: UInt8 = 0
                while read(descriptor, &byte, 1) == 1, byte != 10 { bytes.append(byte) }
                continuation.resume(returning: String(decoding: bytes, as: UTF8.self))
            }
            reader.start()
        }
    }
}
