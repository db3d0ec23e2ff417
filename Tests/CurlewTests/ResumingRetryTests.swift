import Curlew
import Foundation
import Testing
import TestServer

/// `RetryPolicy.resumesDownloads`: a download that fails part way is retried from the bytes on
/// disk; without it, a retry starts over and leaves no partial file of the earlier attempt.
@Suite("Resuming retries")
struct ResumingRetryTests {
    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-resume-retry-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private func policy(resuming: Bool) -> RetryPolicy {
        var policy = RetryPolicy(retryLimit: 4, backoffScale: .milliseconds(1), maximumDelay: .milliseconds(5))
        policy.resumesDownloads = resuming
        return policy
    }

    @Test func aDownloadDroppedThreeTimesCompletesByResuming() async throws {
        let server = try await Fixtures.server()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("three.bin")
        // The first response drops after 100000 bytes, every range after 80000 more.
        let unique = "/resumable/\(UUID().uuidString)"
        let path = "\(unique)?length=300000&drop=100000&dropRange=80000&seed=\(UInt64.random(in: 0..<250))"
        let response = try await Fixtures.session.download(server.url(path), to: .file(destination))
            .intercept(with: policy(resuming: true)).validate().response
        #expect(response.attempts == 4, "three drops, three resumptions")
        #expect(server.requestCount(path: unique) == 4)
        let seed = try #require(URLComponents(url: server.url(path), resolvingAgainstBaseURL: false)?
            .queryItems?.first { $0.name == "seed" }?.value.flatMap { UInt64($0) })
        #expect(try Data(contentsOf: destination) == Data(TestServer.expectedBytes(count: 300_000, seed: seed)))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["three.bin"])
    }

    @Test func withoutResumingARetryStartsOverAndKeepsOnlyTheLastPartialFile() async throws {
        let server = try await Fixtures.server()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("over.bin")
        let error = await #expect(throws: CurlewError.self) {
            _ = try await Fixtures.session.download(server.url("/resumable?length=100000&drop=30000"), to: .file(destination))
                .intercept(with: policy(resuming: false)).fileURL()
        }
        #expect(error?.kind == .retryLimitExceeded)
        let resumeData = try #require(error?.downloadResumeData, "the last attempt's partial file stays reachable")
        #expect(resumeData.bytesOnDisk == 30000, "each attempt started over")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [resumeData.partialFileURL.lastPathComponent],
                "earlier attempts' partial files were removed")
        resumeData.discardPartialFile()
    }
}
