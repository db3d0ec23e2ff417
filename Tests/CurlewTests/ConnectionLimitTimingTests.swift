import Curlew
import Foundation
import Testing
import TestServer

/// `maximumTotalConnections` and `maximumConnectionsPerHost`, counted by the server: each test
/// has its own server, whose peak of connections open at once is the measure. The requests hold
/// the server for a while (`/delay/…`) so that, without the limit, they would overlap and open
/// a connection each; "Timing" in the name runs them in the serial phase.
@Suite("Connection limits (Timing)")
struct ConnectionLimitTimingTests {
    /// Sends `urls` at once through `session`; each must succeed.
    private func sendAtOnce(_ urls: [URL], through session: Session) async throws {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for url in urls {
                group.addTask { try await session.request(url).validate().response.status.code }
            }
            for try await status in group { #expect(status == 200) }
        }
    }

    private func session(total: Int = 0, perHost: Int = 0) -> Session {
        var configuration = SessionConfiguration.default
        configuration.maximumTotalConnections = total
        configuration.maximumConnectionsPerHost = perHost
        return Session(configuration: configuration)
    }

    @Test func withoutLimitsFourHeldRequestsOpenFourConnectionsTiming() async throws {
        // The control: the same load opens a connection per request when nothing limits it,
        // so the peaks of 1 and 2 below are the limits at work, not the load.
        let server = try await TestServer.start()
        let session = session()
        defer { Task { await session.shutdown(); try? await server.shutdown() } }
        // Held for a second, so that even a slow start of the four still overlaps.
        try await sendAtOnce((0..<4).map { server.url("/delay/1000?n=\($0)") }, through: session)
        #expect(server.peakOpenConnectionCount == 4)
    }

    @Test func maximumTotalConnectionsOfOneKeepsOneOpenTiming() async throws {
        let server = try await TestServer.start()
        let session = session(total: 1)
        defer { Task { await session.shutdown(); try? await server.shutdown() } }
        try await sendAtOnce((0..<4).map { server.url("/delay/300?n=\($0)") }, through: session)
        #expect(server.requestCount(path: "/delay/300") == 4)
        #expect(server.peakOpenConnectionCount == 1, "the four requests queued for one connection")
    }

    @Test func maximumConnectionsPerHostOfOneKeepsOnePerHostTiming() async throws {
        // 127.0.0.1 and localhost are two hosts of the same server: one connection each.
        let server = try await TestServer.start()
        let session = session(perHost: 1)
        defer { Task { await session.shutdown(); try? await server.shutdown() } }
        let urls = (0..<4).flatMap { [server.url("/delay/300?n=\($0)"), server.localhostURL("/delay/300?n=\($0)")] }
        try await sendAtOnce(urls, through: session)
        #expect(server.requestCount(path: "/delay/300") == 8)
        #expect(server.peakOpenConnectionCount == 2, "one connection per host, both hosts at once")
    }
}
