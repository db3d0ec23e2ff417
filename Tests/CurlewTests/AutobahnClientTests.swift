import Curlew
import Foundation
import Testing

/// The fuzzing server's address, from scripts/autobahn.sh.
private let autobahnServerURL = ProcessInfo.processInfo.environment["CURLEW_AUTOBAHN_URL"]

/// The Autobahn test suite's client cases (1.* to 13.*), driven by `scripts/autobahn.sh`, which
/// starts the suite's fuzzing server and sets `CURLEW_AUTOBAHN_URL`. Without it the suite is
/// skipped: a full run takes minutes and needs Python 2.7 with autobahntestsuite.
///
/// Each case connects, echoes every message back as it came (text as text, binary as binary)
/// until the server closes, and lets the server judge; the verdicts land in the server's
/// `reports/clients/index.json`, which the script summarizes (docs/autobahn.md).
@Suite(
    "Autobahn fuzzing server client",
    .enabled(if: autobahnServerURL != nil, "set CURLEW_AUTOBAHN_URL (scripts/autobahn.sh does)"))
struct AutobahnClientTests {

    @Test func everyCaseOfTheFuzzingServer() async throws {
        let base = try #require(autobahnServerURL)
        let session = Session()
        var options = WebSocketOptions()
        // Case 9.* sends messages of up to 16 MiB.
        options.maximumMessageSize = 64 << 20
        options.maximumFrameSize = 64 << 20
        options.closeTimeout = .seconds(10)
        var count = 0
        let counter = try await session.webSocket("\(base)/getCaseCount")
        for try await message in counter.messages {
            if case .text(let text) = message { count = Int(text) ?? 0 }
        }
        try #require(count > 0)
        for index in 1...count {
            do {
                let socket = try await session.webSocket("\(base)/runCase?case=\(index)&agent=Curlew", options: options)
                for try await message in socket.messages { try await socket.send(message) }
            } catch {
                // Many cases are a server breaking the protocol on purpose: the error is the
                // expected outcome, and the server's report judges how the client reacted.
            }
        }
        let reports = try await session.webSocket("\(base)/updateReports?agent=Curlew")
        for try await _ in reports.messages {}
        await session.shutdown()
    }
}
