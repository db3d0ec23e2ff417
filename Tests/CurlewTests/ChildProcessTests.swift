import Foundation
import Glibc
import Testing
import TestServer

/// The tests' one way to start processes (`SpawnedProcess`, `ChildProcess`), which replaced
/// Foundation's `Process` after it crashed the test process in parallel runs (issue 10).
@Suite("Child processes started by the tests")
struct ChildProcessTests {
    @Test func manyShortLivedChildrenAtOnceEachGetTheirOwnStatusAndOutput() async throws {
        let results = try await withThrowingTaskGroup(of: (Int, ChildProcess.Result).self) { group in
            for index in 0..<24 {
                group.addTask {
                    let script = "echo out-\(index); echo err-\(index) >&2; exit \(index % 7)"
                    return (index, try await ChildProcess.run("/bin/sh", ["-c", script]))
                }
            }
            var results: [Int: ChildProcess.Result] = [:]
            for try await (index, result) in group { results[index] = result }
            return results
        }
        #expect(results.count == 24)
        for (index, result) in results {
            #expect(result.status == Int32(index % 7), "child \(index)")
            #expect(result.text == "out-\(index)\n")
            #expect(result.errorText == "err-\(index)\n")
        }
    }

    @Test func theChildKeepsOnlyItsStandardDescriptors() async throws {
        // A descriptor of this process that is not close-on-exec: the child must not get it.
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        defer {
            close(ends[0])
            close(ends[1])
        }
        let result = try await ChildProcess.run("/bin/sh", ["-c", "ls /proc/$$/fd"])
        #expect(result.status == 0, "\(result.errorText)")
        #expect(result.text.split(separator: "\n") == ["0", "1", "2"])
    }

    @Test func aChildKilledByASignalReports128PlusTheSignal() async throws {
        let result = try await ChildProcess.run("/bin/sh", ["-c", "kill -9 $$"])
        #expect(result.status == 128 + SIGKILL)
    }

    @Test func largeOutputIsReadWhileTheChildRuns() async throws {
        // 1 MiB: far more than a pipe buffer, so the child would block if nobody read.
        let result = try await ChildProcess.run("/bin/sh", ["-c", "head -c 1048576 /dev/zero"])
        #expect(result.status == 0)
        #expect(result.output.count == 1_048_576)
    }

    @Test func aLongLivedChildCanBeSignalledAndAwaited() async throws {
        let process = try SpawnedProcess(executable: "/bin/sleep", arguments: ["30"])
        #expect(process.isRunning)
        #expect(process.exitStatus == nil)
        process.send(SIGTERM)
        let status = await process.waitForExit()
        #expect(status == 128 + SIGTERM)
        #expect(process.exitStatus == status)
        #expect(!process.isRunning)
        // Waiting again returns the recorded status at once; signalling a reaped child does nothing.
        process.send(SIGKILL)
        #expect(await process.waitForExit() == status)
    }

    @Test func aMissingExecutableCannotStart() async throws {
        // glibc's posix_spawn reports a failed exec to the caller, so no child is left to reap.
        await #expect(throws: TestServerError.self) {
            _ = try await ChildProcess.run("/nonexistent/tool", [])
        }
    }
}
