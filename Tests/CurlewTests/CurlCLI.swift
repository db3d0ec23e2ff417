import Foundation
import Testing
import TestServer

/// The `curl` command-line tool, run as a child process (through `ChildProcess`, never
/// Foundation's `Process`: see `SpawnedProcess`).
enum CurlCLI {
    static func run(_ arguments: [String]) async throws -> ChildProcess.Result {
        try await ChildProcess.run("/usr/bin/curl", arguments)
    }
}

extension ChildProcess.Result {
    var exitCode: Int32 { status }

    /// Standard output parsed as a JSON object.
    func jsonObject() throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: output)
        return try #require(object as? [String: Any], "expected a JSON object, got: \(text.prefix(300))")
    }
}
