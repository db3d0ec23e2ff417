import Foundation
import Glibc

/// Runs a command-line tool to completion (curl, openssl, `/bin/sh`) through ``SpawnedProcess``
/// (see there why not Foundation's `Process`), capturing its standard output and error.
public enum ChildProcess {
    /// What one run produced.
    public struct Result: Sendable {
        /// The exit status (128 + the signal number when killed by a signal).
        public var status: Int32
        public var output: Data
        public var errorOutput: Data

        public var text: String { String(decoding: output, as: UTF8.self) }
        public var errorText: String { String(decoding: errorOutput, as: UTF8.self) }
    }

    /// Runs `executable` (an absolute path) with `arguments`, standard input from `input` (a
    /// file; `/dev/null` when nil), in `directory` if given, with `environment` (this process's
    /// without the proxy variables unless given), and returns once it has exited and both
    /// outputs are read to the end. Throws only if it cannot be started.
    public static func run(
        _ executable: String, _ arguments: [String], in directory: URL? = nil,
        environment: [String: String] = SpawnedProcess.environmentWithoutProxies, input: URL? = nil
    ) async throws -> Result {
        var inputRedirection = SpawnedProcess.Redirection.nullDevice
        var inputDescriptor: Int32 = -1
        if let input {
            inputDescriptor = open(input.path, O_RDONLY | O_CLOEXEC)
            guard inputDescriptor >= 0 else { throw TestServerError("cannot open \(input.path): errno \(errno)") }
            inputRedirection = .descriptor(inputDescriptor)
        }
        defer { if inputDescriptor >= 0 { close(inputDescriptor) } }
        let output = try Pipe()
        let error: Pipe
        do {
            error = try Pipe()
        } catch {
            output.closeBoth()
            throw error
        }
        let process: SpawnedProcess
        do {
            process = try SpawnedProcess(
                executable: executable, arguments: arguments, environment: environment, directory: directory?.path,
                input: inputRedirection, output: .descriptor(output.write), error: .descriptor(error.write))
        } catch let failure {
            output.closeBoth()
            error.closeBoth()
            throw failure
        }
        // Only the child may hold the write ends now, so the reads end when it exits.
        close(output.write)
        close(error.write)
        let (stdout, stderr) = await readToEnd(output.read, error.read)
        let status = await process.waitForExit()
        return Result(status: status, output: stdout, errorOutput: stderr)
    }

    /// A pipe whose ends are close-on-exec (the spawned child gets its end through `dup2`).
    /// `pipe2` is a GNU extension Swift's Glibc module does not declare; the moment between
    /// `pipe` and `fcntl` does no harm, since every child the tests start closes all
    /// descriptors above 2 (see ``SpawnedProcess``).
    private struct Pipe {
        let read: Int32
        let write: Int32

        init() throws {
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else { throw TestServerError("pipe() failed: errno \(errno)") }
            read = ends[0]
            write = ends[1]
            _ = fcntl(read, F_SETFD, FD_CLOEXEC)
            _ = fcntl(write, F_SETFD, FD_CLOEXEC)
        }

        func closeBoth() {
            close(read)
            close(write)
        }
    }

    /// Reads both descriptors until end-of-file on a thread of its own (the reads block), closes
    /// them, and returns what was read.
    private static func readToEnd(_ first: Int32, _ second: Int32) async -> (Data, Data) {
        await withCheckedContinuation { continuation in
            let reader = Thread {
                var outputs = [Data(), Data()]
                var polled = [first, second].map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
                var buffer = [UInt8](repeating: 0, count: 65536)
                while polled.contains(where: { $0.fd >= 0 }) {
                    guard poll(&polled, nfds_t(polled.count), -1) >= 0 || errno == EINTR else { break }
                    for index in polled.indices where polled[index].fd >= 0 && polled[index].revents != 0 {
                        let count = buffer.withUnsafeMutableBytes { read(polled[index].fd, $0.baseAddress, $0.count) }
                        if count > 0 {
                            outputs[index].append(contentsOf: buffer[0..<count])
                        } else if count == 0 || errno != EINTR {
                            close(polled[index].fd)
                            polled[index].fd = -1  // poll ignores negative descriptors
                        }
                    }
                }
                for entry in polled where entry.fd >= 0 { close(entry.fd) }
                continuation.resume(returning: (outputs[0], outputs[1]))
            }
            reader.name = "ChildProcess.reader"
            reader.start()
        }
    }
}
