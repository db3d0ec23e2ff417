import Curlew
import Foundation
import Testing
import TestServer

/// The arithmetic of ``TransferProgress`` and the expiry rules of ``OAuth2Credential``: plain
/// values, tested at their boundaries, plus the progress libcurl reports for a real download.
@Suite("TransferProgress and OAuth2Credential values")
struct ProgressAndCredentialValueTests {
    private func progress(_ completed: Int64, of total: Int64?, rate: Double = 0) -> TransferProgress {
        TransferProgress(completedBytes: completed, totalBytes: total, bytesPerSecond: rate, elapsed: .seconds(1))
    }

    @Test func fractionCompletedIsClampedAndZeroWithoutATotal() {
        #expect(progress(250, of: 1000).fractionCompleted == 0.25)
        #expect(progress(999, of: 1000).fractionCompleted == 0.999)
        #expect(progress(1000, of: 1000).fractionCompleted == 1)
        #expect(progress(1500, of: 1000).fractionCompleted == 1, "more bytes than announced still reads as done")
        #expect(progress(500, of: nil).fractionCompleted == 0)
        #expect(progress(500, of: 0).fractionCompleted == 0, "no division by an empty total")
    }

    @Test func finishedOnlyOnceEveryExpectedByteIsDone() {
        #expect(!progress(999, of: 1000).isFinished)
        #expect(progress(1000, of: 1000).isFinished)
        #expect(progress(1001, of: 1000).isFinished)
        #expect(progress(0, of: 0).isFinished)
        #expect(!progress(1000, of: nil).isFinished, "without a total, never known to be finished")
    }

    @Test func estimatedTimeRemainingFollowsTheAverageRate() {
        #expect(progress(250, of: 1000, rate: 500).estimatedTimeRemaining == .milliseconds(1500))
        #expect(progress(999, of: 1000, rate: 1000).estimatedTimeRemaining == .milliseconds(1))
        #expect(progress(1000, of: 1000, rate: 1000).estimatedTimeRemaining == .zero)
        #expect(progress(1200, of: 1000, rate: 1000).estimatedTimeRemaining == .zero, "never negative")
        #expect(progress(250, of: 1000, rate: 0).estimatedTimeRemaining == nil, "no rate yet: no estimate")
        #expect(progress(250, of: nil, rate: 500).estimatedTimeRemaining == nil, "no total: no estimate")
    }

    @Test func aRealDownloadReportsProgressTowardsItsLength() async throws {
        let server = try await Fixtures.server()
        var configuration = SessionConfiguration()
        configuration.progressInterval = .milliseconds(20)
        let session = Session(configuration: configuration)
        defer { Task { await session.shutdown() } }
        var reports: [TransferProgress] = []
        for try await event in session.request(server.url("/drip?bytes=30000&duration=400&chunks=10")).events {
            if case .downloadProgress(let value) = event { reports.append(value) }
        }
        let last = try #require(reports.last)
        #expect(last.completedBytes == 30000)
        #expect(last.totalBytes == 30000)
        #expect(last.isFinished)
        #expect(last.estimatedTimeRemaining == .zero)
        #expect(last.bytesPerSecond > 0)
        let partial = reports.filter { $0.completedBytes > 0 && $0.completedBytes < 30000 }
        #expect(!partial.isEmpty, "the body arrived in steps")
        #expect(partial.allSatisfy { !$0.isFinished && $0.fractionCompleted < 1 })
        #expect(partial.allSatisfy { ($0.estimatedTimeRemaining ?? .zero) > .zero })
    }

    @Test func credentialExpiresAtItsExpiryInstant() {
        let expiry = Date(timeIntervalSince1970: 1_700_000_000)
        let credential = OAuth2Credential(accessToken: "a", refreshToken: "r", expiresAt: expiry)
        #expect(!credential.isExpired(at: expiry.addingTimeInterval(-0.001)))
        #expect(credential.isExpired(at: expiry), "expired at the instant itself")
        #expect(credential.isExpired(at: expiry.addingTimeInterval(3600)))

        let unknown = OAuth2Credential(accessToken: "a", refreshToken: nil, expiresAt: nil)
        #expect(!unknown.isExpired(at: .distantFuture), "without an expiry it is refreshed only after a 401")
        #expect(!unknown.isExpired())
    }

    @Test func credentialExpiringInADurationCountsFromNow() throws {
        let before = Date()
        let credential = OAuth2Credential(
            accessToken: "a", refreshToken: "r", expiresIn: .seconds(90), tokenType: "bearer", scope: "read write")
        let after = Date()
        let expiresAt = try #require(credential.expiresAt)
        #expect(expiresAt >= before.addingTimeInterval(90) && expiresAt <= after.addingTimeInterval(90))
        #expect(!credential.isExpired())
        #expect(credential.isExpired(at: after.addingTimeInterval(90.001)))
        #expect(credential.tokenType == "bearer")
        #expect(credential.scope == "read write")
        #expect(credential.refreshToken == "r")

        let start = Date()
        let fractional = try #require(
            OAuth2Credential(accessToken: "a", refreshToken: nil, expiresIn: .milliseconds(1500)).expiresAt)
        let end = Date()
        #expect(
            fractional >= start.addingTimeInterval(1.5) && fractional <= end.addingTimeInterval(1.5),
            "sub-second durations are kept")

        let past = OAuth2Credential(accessToken: "a", refreshToken: nil, expiresIn: .seconds(-1))
        #expect(past.isExpired(), "a negative lifetime is already expired")
        #expect(past.tokenType == "Bearer" && past.scope == nil, "the defaults")
    }

    @Test func credentialSurvivesACodableRoundTripAndHidesItsTokens() throws {
        let credential = OAuth2Credential(
            accessToken: "secret-access", refreshToken: "secret-refresh",
            expiresAt: Date(timeIntervalSince1970: 1_700_000_000.5), scope: "read")
        let decoded = try JSONDecoder().decode(OAuth2Credential.self, from: JSONEncoder().encode(credential))
        #expect(decoded == credential)
        #expect(Set([credential, decoded]).count == 1)
        #expect(!credential.description.contains("secret"))
        #expect(credential.description.contains("refresh token: present"))
        let bare = OAuth2Credential(accessToken: "secret-access", refreshToken: nil, expiresAt: nil)
        #expect(bare.description == "OAuth2Credential(Bearer, no known expiry, refresh token: none)")
        #expect(bare != credential)
    }
}
