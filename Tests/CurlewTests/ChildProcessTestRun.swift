import Foundation
import Testing
import TestServer

/// Runs one suite of this test binary again in a child process whose environment has no proxy
/// variables, for what libcurl does with them behind Curlew's back (its DNS-over-HTTPS lookups
/// take the environment's proxy). The suite runs only where ``variable`` names it (see
/// ``isChild(_:)``), so in the ordinary run it is skipped and its parent test reports for it.
enum ChildProcessTestRun {
    /// The variable that tells the child which suite it is there for.
    static let variable = "CURLEW_CHILD_SUITE"

    /// Whether this process is the child started for `childSuite`.
    static func isChild(_ childSuite: String) -> Bool {
        ProcessInfo.processInfo.environment[variable] == childSuite
    }

    /// Runs the tests whose names match `suite` in a child with `variable=childSuite`; how many
    /// passed (nil when the run failed) and its whole output.
    static func run(suite: String, childSuite: String) async throws -> (passed: Int?, output: String) {
        let binary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        var environment = SpawnedProcess.environmentWithoutProxies
        environment[variable] = childSuite
        environment["NO_COLOR"] = "1"
        let result = try await ChildProcess.run(
            binary, ["--testing-library", "swift-testing", "--filter", suite], environment: environment)
        let output = result.text + result.errorText
        guard result.status == 0 else { return (nil, output) }
        // One "✔ Test name() passed after 0.4 seconds." line per test that ran and passed; a
        // skipped test ("➜ Test name() skipped.") counts for nothing.
        let count = output.split(separator: "\n").filter {
            $0.contains(" Test ") && $0.contains("() passed after") && !$0.contains("Test run with")
        }.count
        return (count, output)
    }
}
