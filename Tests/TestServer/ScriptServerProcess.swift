import Foundation
import Glibc

/// A server script from `Scripts/` run as a child process that prints `PORT <n>` once it
/// listens and runs until its standard input closes: the start and stop that
/// ``PythonWebSocketServer`` and ``H2PriorityServer`` share.
struct ScriptServerProcess: Sendable {
    let port: Int
    let process: SpawnedProcess
    /// Our end of the script's standard input; closing it asks the script to end.
    let input: Int32

    /// Runs `executable` with `arguments`, waits for its `PORT` line, and fails with `hint`
    /// (what to install) when the script says anything else.
    static func start(executable: String, arguments: [String], hint: String) async throws -> ScriptServerProcess {
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
                executable: executable, arguments: arguments,
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
            throw TestServerError("\(hint) (it said '\(line)')")
        }
        return ScriptServerProcess(port: port, process: process, input: inputEnds[1])
    }

    /// Closes the script's standard input, stops it and waits for it to exit.
    func stop() async {
        close(input)
        process.send(SIGTERM)
        _ = await process.waitForExit()
    }

    /// One line from `descriptor`, read on a thread of its own (reading blocks).
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
