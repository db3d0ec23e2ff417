import Foundation
import Testing
import TestServer

/// `--trace` (the wire trace on standard error) and `--har FILE` (exchanges appended to a HAR file).
@Suite(.temporaryFolders) struct CLITraceAndHARTests {
    @Test func traceShowsTheHeadsAsSentAndReceivedWithSecretsHidden() async throws {
        try await withServer { server in
            let run = try await CLI.run(["--trace", server.url("/get").absoluteString, "Authorization:Bearer sekrit-token"])
            #expect(run.status == 0, "\(run.errorOutput)")
            #expect(run.errorOutput.contains("> GET /get HTTP/1.1"), "\(run.errorOutput)")
            #expect(run.errorOutput.contains("< HTTP/1.1 200"), "\(run.errorOutput)")
            #expect(run.errorOutput.contains("Authorization: Bearer ***"))
            #expect(!run.errorOutput.contains("sekrit-token"))
            let untraced = try await CLI.run([server.url("/get").absoluteString])
            #expect(!untraced.errorOutput.contains("> GET"), "no trace unless asked: \(untraced.errorOutput)")
        }
    }

    @Test func harAppendsEachRunsExchangesToOnePrivateFile() async throws {
        try await withServer { server in
            let file = try TemporaryFolder.make().appendingPathComponent("runs.har")
            let first = try await CLI.run(["--har", file.path, "--follow", server.url("/redirect/1").absoluteString])
            #expect(first.status == 0, "\(first.errorOutput)")
            let second = try await CLI.run(["--har", file.path, server.url("/get?access_token=s3cret").absoluteString])
            #expect(second.status == 0, "\(second.errorOutput)")
            let object = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
            let log = try #require(object?["log"] as? [String: Any])
            let entries = try #require(log["entries"] as? [[String: Any]])
            let urls = entries.compactMap { ($0["request"] as? [String: Any])?["url"] as? String }
            #expect(urls.count == 3, "a redirect hop and its target, then the second run: \(urls)")
            #expect(urls.last?.contains("access_token=") == true && !urls.contains { $0.contains("s3cret") }, "\(urls)")
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)

            try Data("not HAR".utf8).write(to: file)
            let refused = try await CLI.run(["--har", file.path, server.url("/get").absoluteString])
            #expect(refused.status != 0)
            #expect(refused.errorLines.last?.hasPrefix("curlew: --har") == true, "\(refused.errorOutput)")
            #expect(String(decoding: try Data(contentsOf: file), as: UTF8.self) == "not HAR", "a file that is not HAR is left alone")
        }
    }
}
