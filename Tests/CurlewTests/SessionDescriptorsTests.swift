@testable import Curlew
import Foundation
import Testing

/// Process-wide descriptor accounting: run in the serial phase of `scripts/test.sh`, where no
/// other test opens or closes descriptors meanwhile.
@Suite("Session descriptors")
struct SessionDescriptorsTests {
    private func openDescriptors() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
    }

    /// A session's wakeup eventfd is closed when the session (and its loop) goes away, and its
    /// connections when it shuts down: twenty sessions leave none of their descriptors behind.
    @Test func aSessionThatIsGoneLeavesNoDescriptor() async throws {
        let server = try await Fixtures.server()
        let warmUp = Session()
        _ = try await warmUp.request(server.url("/get")).validate().data()
        await warmUp.shutdown()
        let before = try openDescriptors()
        for _ in 0..<20 {
            let session = Session()
            _ = try await session.request(server.url("/get")).validate().data()
            await session.shutdown()
        }
        // The loop's thread drops its reference when it exits, just after `shutdown()` returns.
        var after = try openDescriptors()
        for _ in 0..<50 where after - before >= 5 {
            try await Task.sleep(for: .milliseconds(20))
            after = try openDescriptors()
        }
        #expect(after - before < 5, "\(after - before) more descriptors open after 20 sessions")
    }
}
