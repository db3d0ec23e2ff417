import Foundation

/// Runs command-line tools (openssl) for the fixtures, without blocking a thread while they run.
enum ProcessRunner {
    /// Runs `executable` with `arguments` and waits for it to exit. Throws ``TestServerError``
    /// (including the tool's standard error) if it cannot start or exits with a non-zero status.
    static func run(_ executable: String, _ arguments: [String], in directory: URL) async throws {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw TestServerError("\(executable) is not installed (needed by the TLS test fixtures)")
        }
        let errorURL = directory.appendingPathComponent("stderr-\(UUID().uuidString).txt")
        guard FileManager.default.createFile(atPath: errorURL.path, contents: nil) else {
            throw TestServerError("cannot create \(errorURL.path)")
        }
        defer { try? FileManager.default.removeItem(at: errorURL) }
        let errorHandle = try FileHandle(forWritingTo: errorURL)
        defer { try? errorHandle.close() }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errorHandle
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { finished in
                continuation.resume(returning: finished.terminationStatus)
            }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: TestServerError("cannot run \(executable): \(error)"))
            }
        }
        guard status == 0 else {
            let message = (try? String(contentsOf: errorURL, encoding: .utf8)) ?? ""
            let command = ([executable] + arguments).joined(separator: " ")
            throw TestServerError("\(command) exited with status \(status): \(message)")
        }
    }
}
