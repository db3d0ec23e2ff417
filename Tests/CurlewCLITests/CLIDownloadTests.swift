import Foundation
import Testing
import TestServer

/// `--download`, `--continue`, `--output` and `--stream`.
@Suite(.temporaryFolders) struct CLIDownloadTests {
    @Test func downloadToTheNamedFile() async throws {
        try await withServer { server in
            let folder = try TemporaryFolder.make()
            let file = folder.appendingPathComponent("pattern.bin")
            let run = try await CLI.run(["-d", "-o", file.path, server.url("/bytes/70000?seed=3").absoluteString])
            #expect(run.status == 0, "\(run.errorOutput)")
            #expect(run.output.isEmpty)
            #expect([UInt8](try Data(contentsOf: file)) == TestServer.expectedBytes(count: 70000, seed: 3))
            #expect(run.errorOutput.contains("Saved to \(file.path)"))
        }
    }

    @Test func downloadNamesTheFileAfterTheURLWithoutClobbering() async throws {
        try await withServer { server in
            let folder = try TemporaryFolder.make()
            try Data("keep".utf8).write(to: folder.appendingPathComponent("500"))
            let run = try await CLI.run(["--download", server.url("/bytes/500").absoluteString], in: folder)
            #expect(run.status == 0, "\(run.errorOutput)")
            #expect(try Data(contentsOf: folder.appendingPathComponent("500")) == Data("keep".utf8))
            #expect([UInt8](try Data(contentsOf: folder.appendingPathComponent("500-1"))) == TestServer.expectedBytes(count: 500))
        }
    }

    @Test func failedDownloadLeavesNothingAndExitsByStatus() async throws {
        try await withServer { server in
            let file = try TemporaryFolder.make().appendingPathComponent("missing.bin")
            let run = try await CLI.run(["-d", "-o", file.path, server.url("/status/404").absoluteString])
            #expect(run.status == 4)
            #expect(run.errorLines.last == "curlew: error: HTTP 404 Not Found")
            #expect(!FileManager.default.fileExists(atPath: file.path))
        }
    }

    @Test func continueAppendsTheRestOfAPartialFile() async throws {
        try await withServer { server in
            let file = try TemporaryFolder.make().appendingPathComponent("part.bin")
            let whole = TestServer.expectedBytes(count: 5000, seed: 1)
            try Data(whole[0..<1234]).write(to: file)
            let url = server.url("/resumable?length=5000&seed=1").absoluteString
            let run = try await CLI.run(["-d", "-c", "-o", file.path, url])
            #expect(run.status == 0, "\(run.errorOutput)")
            #expect([UInt8](try Data(contentsOf: file)) == whole)

            let again = try await CLI.run(["-d", "-c", "-o", file.path, url])
            #expect(again.status == 0)
            #expect(again.errorOutput.contains("already complete"))
            #expect([UInt8](try Data(contentsOf: file)) == whole)
        }
    }

    @Test func continueStartsOverWhenTheServerIgnoresTheRange() async throws {
        try await withServer { server in
            let file = try TemporaryFolder.make().appendingPathComponent("part.bin")
            try Data(repeating: 0xFF, count: 100).write(to: file)
            let run = try await CLI.run(["-d", "-c", "-o", file.path, server.url("/resumable?length=300&ranges=0").absoluteString])
            #expect(run.status == 0, "\(run.errorOutput)")
            #expect([UInt8](try Data(contentsOf: file)) == TestServer.expectedBytes(count: 300))
        }
    }

    @Test func continueRefusesARangeThatStartsElsewhere() async throws {
        try await withServer { server in
            let file = try TemporaryFolder.make().appendingPathComponent("part.bin")
            let whole = TestServer.expectedBytes(count: 300)
            try Data(whole[0..<100]).write(to: file)
            let run = try await CLI.run(["-d", "-c", "-o", file.path, server.url("/resumable?length=300&badStart=1").absoluteString])
            #expect(run.status == 1)
            #expect(run.errorLines.count == 1)
            #expect([UInt8](try Data(contentsOf: file)) == Array(whole[0..<100]))
        }
    }

    /// In a terminal, standard error shows the progress bar and a summary.
    @Test func progressBarInATerminal() async throws {
        try await withServer { server in
            let file = try TemporaryFolder.make().appendingPathComponent("drip.bin")
            let run = try await CLI.runInTerminal([
                "-d", "-o", file.path, server.url("/drip?bytes=4000&duration=600&chunks=8").absoluteString,
            ])
            #expect(run.status == 0, "\(run.output)")
            #expect(run.output.contains("100% ["), "\(run.output)")
            #expect(run.output.contains("4.0 kB / 4.0 kB"))
            #expect(run.output.contains("/s"))
            #expect(run.output.contains("Done. 4.0 kB in "))
            let piped = try await CLI.run(["-d", "-o", file.path, server.url("/bytes/4000").absoluteString])
            #expect(!piped.errorOutput.contains("%"))
        }
    }

    @Test func streamPrintsNDJSONRecords() async throws {
        try await withServer { server in
            let run = try await CLI.run(["--stream", server.url("/json-lines?count=3").absoluteString])
            #expect(run.status == 0, "\(run.errorOutput)")
            #expect(run.output == """
                {"id":0,"name":"item-0"}
                {"id":1,"name":"item-1"}
                {"id":2,"name":"item-2"}

                """)
        }
    }

    @Test func streamPrintsServerSentEvents() async throws {
        try await withServer { server in
            let run = try await CLI.run(["-S", server.url("/sse?count=2").absoluteString])
            #expect(run.status == 0, "\(run.errorOutput)")
            #expect(run.output == "tick: event 0\n{\"id\":0}\ntick: event 1\n{\"id\":1}\n")
        }
    }
}
