import Foundation

/// Runs command-line tools (openssl) for the fixtures, through ``ChildProcess``.
enum ProcessRunner {
    /// Runs `executable` with `arguments` in `directory` and waits for it to exit. Throws
    /// ``TestServerError`` (including the tool's standard error) if it cannot start or exits
    /// with a non-zero status.
    static func run(_ executable: String, _ arguments: [String], in directory: URL) async throws {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw TestServerError("\(executable) is not installed (needed by the TLS test fixtures)")
        }
        let result = try await ChildProcess.run(executable, arguments, in: directory)
        guard result.status == 0 else {
            let command = ([executable] + arguments).joined(separator: " ")
            throw TestServerError("\(command) exited with status \(result.status): \(result.errorText)")
        }
    }
}
