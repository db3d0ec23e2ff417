import Curlew
import Foundation
import Testing
import TestServer

#if canImport(Glibc)
import Glibc
#endif

/// A 1 GiB download whose connection drops three times, completed by
/// `RetryPolicy.resumesDownloads` in bounded memory. Named "Memory" so that `scripts/test.sh`
/// runs it alone, after the rest.
@Suite("Resumed download memory", .serialized)
struct ResumedDownloadMemoryTests {
    static let length = 1 << 30
    static let allowedGrowth = 64 << 20

    @Test func aGibibyteResumedThreeTimesStaysInBoundedMemory() async throws {
        let server = try await Fixtures.server()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-resume-memory-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("gib.bin")
        let unique = "/resumable/\(UUID().uuidString)"
        let step = 300 << 20
        var policy = RetryPolicy(retryLimit: 4, backoffScale: .milliseconds(1), maximumDelay: .milliseconds(5))
        policy.resumesDownloads = true

        let baseline = try ResidentMemory.bytes()
        var peak = 0
        let download = Fixtures.session.download(
            server.url("\(unique)?length=\(Self.length)&drop=\(step)&dropRange=\(step)"), to: .file(destination)
        ).intercept(with: policy).validate()
        var events = 0
        for try await _ in download.events {
            events += 1
            if events % 64 == 0 { peak = max(peak, try ResidentMemory.bytes() - baseline) }
        }
        peak = max(peak, try ResidentMemory.bytes() - baseline)
        #expect(try await download.response.attempts == 4, "three drops, three resumptions")
        #expect(server.requestCount(path: unique) == 4)
        #expect(peak < Self.allowedGrowth, "resident memory grew by \(peak >> 20) MiB")
        #expect(try matchesPattern(destination, count: Self.length), "the file is the resource, byte for byte")
    }

    /// Whether the file is exactly `count` bytes of the test server's pattern (seed 0), read in
    /// chunks so the check itself stays small.
    private func matchesPattern(_ file: URL, count: Int) throws -> Bool {
        let chunk = 4 << 20
        let pattern = TestServer.expectedBytes(count: chunk + 251)
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var offset = 0
        while let data = try handle.read(upToCount: chunk), !data.isEmpty {
            let phase = offset % 251
            let same = data.withUnsafeBytes { read in
                pattern.withUnsafeBytes { expected in
                    guard let actual = read.baseAddress, let wanted = expected.baseAddress else { return false }
                    return memcmp(actual, wanted + phase, data.count) == 0
                }
            }
            guard same else { return false }
            offset += data.count
        }
        return offset == count
    }
}
