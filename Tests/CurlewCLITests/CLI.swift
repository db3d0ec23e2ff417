import Foundation
import Testing
import TestServer

/// Runs the built `curlew` binary as a child process, the way a user does.
enum CLI {
    /// What one run printed and how it ended.
    struct Run {
        var status: Int32
        var output: String
        var errorOutput: String
        var outputData: Data

        /// The lines of standard error (without the empty last one).
        var errorLines: [String] { errorOutput.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }

        /// Standard output as a JSON object (the echo routes' answer).
        func json() throws -> [String: Any] {
            let object = try JSONSerialization.jsonObject(with: outputData)
            return try #require(object as? [String: Any], "not a JSON object: \(output)")
        }
    }

    /// `.build/<triple>/debug/curlew`, beside the test bundle that runs this.
    static func binary() throws -> String {
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        var directory = runner.deletingLastPathComponent()
        // A bundle directory (`CurlewPackageTests.xctest/…`) sits inside the build folder too.
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("curlew").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        throw TestServerError("the curlew binary is not built beside \(runner.path): run swift build first")
    }

    /// The environment of every run: this process's (proxy variables included: loopback requests
    /// must ignore them, as the library does), without colour overrides or a session folder of
    /// the developer's, plus `extra`.
    static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for name in ["NO_COLOR", "XDG_CONFIG_HOME", "FORCE_COLOR"] { environment[name] = nil }
        environment["HOME"] = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-cli-tests-home").path
        environment["TERM"] = "xterm-256color"
        for (name, value) in extra { environment[name] = value }
        return environment
    }

    /// Runs `curlew arguments…` with standard input from `input` (nil: /dev/null).
    static func run(
        _ arguments: [String], environment extra: [String: String] = [:], input: Data? = nil, in directory: URL? = nil
    ) async throws -> Run {
        var inputFile: URL?
        if let input {
            let file = try TemporaryFolder.make().appendingPathComponent("stdin")
            try input.write(to: file)
            inputFile = file
        }
        let result = try await ChildProcess.run(
            try binary(), arguments, in: directory, environment: environment(extra), input: inputFile)
        return Run(status: result.status, output: result.text, errorOutput: result.errorText, outputData: result.output)
    }

    /// Runs `curlew arguments…` in a pseudo-terminal (util-linux's `script`), so that standard
    /// output and error are a terminal; returns what the terminal showed.
    static func runInTerminal(
        _ arguments: [String], environment extra: [String: String] = [:], in directory: URL? = nil
    ) async throws -> Run {
        let command = ([try binary()] + arguments).map(shellQuoted).joined(separator: " ")
        let result = try await ChildProcess.run(
            "/usr/bin/script", ["-qec", command, "/dev/null"], in: directory, environment: environment(extra))
        return Run(status: result.status, output: result.text, errorOutput: result.errorText, outputData: result.output)
    }

    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// A fresh folder for one test: inside the test's own folder, which ``TemporaryFolderScope``
/// removes when the test ends (so nothing is left in the temporary directory).
enum TemporaryFolder {
    @TaskLocal static var root: URL?

    static func make() throws -> URL {
        let parent = root ?? FileManager.default.temporaryDirectory
        let url = parent.appendingPathComponent("curlew-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// Gives every test of a suite a temporary folder of its own and removes it afterwards.
struct TemporaryFolderScope: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard !test.isSuite else { return try await function() }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-cli-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try await TemporaryFolder.$root.withValue(root) { try await function() }
    }
}

extension Trait where Self == TemporaryFolderScope {
    /// Each test's temporary files in a folder removed when it ends.
    static var temporaryFolders: Self { TemporaryFolderScope() }
}

/// Runs `body` with a test server, shut down afterwards.
func withServer(_ body: (TestServer) async throws -> Void) async throws {
    let server = try await TestServer.start()
    do {
        try await body(server)
    } catch {
        try await server.shutdown()
        throw error
    }
    try await server.shutdown()
}
