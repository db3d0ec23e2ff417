@testable import Curlew
import Foundation
import HTTPTypes
import Testing

/// A transfer's settings: the session's, shared, under the request's overrides.
@Suite("Transfer settings")
struct TransferSettingsTests {
    private func sessionSettings() -> SessionTransferSettings {
        var configuration = SessionConfiguration()
        configuration.userAgent = "Shared/1"
        configuration.timeouts.connect = .seconds(3)
        configuration.timeouts.total = .seconds(30)
        configuration.httpVersion = .http1_1
        configuration.maximumBodySize = 1000
        return SessionTransferSettings(configuration: configuration)
    }

    @Test func aRequestWithoutOverridesHasTheSessionsValues() {
        let session = sessionSettings()
        let settings = TransferSettings(session: session, options: RequestOptions())
        #expect(settings.timeouts == session.timeouts)
        #expect(settings.httpVersion == .http1_1)
        #expect(settings.maximumBodySize == 1000)
        #expect(settings.userAgent == "Shared/1")
        #expect(settings.proxyOverride == nil)
        #expect(settings.credential == nil)
    }

    @Test func aRequestsOverridesWinFieldByField() {
        var options = RequestOptions()
        options.timeouts.total = .seconds(5)
        options.httpVersion = .http2PriorKnowledge
        options.maximumBodySize = 10
        let settings = TransferSettings(session: sessionSettings(), options: options)
        #expect(settings.timeouts.total == .seconds(5))
        #expect(settings.timeouts.connect == .seconds(3), "unset fields keep the session's")
        #expect(settings.httpVersion == .http2PriorKnowledge)
        #expect(settings.maximumBodySize == 10)
    }

    @Test func theSessionsLimitsAreCheckedOnceAndARequestsOwnEachTime() throws {
        let url = try #require(URL(string: "http://localhost/"))
        #expect(sessionSettings().limitsAreValid)
        var invalid = SessionConfiguration()
        invalid.timeouts.idle = .zero
        let broken = SessionTransferSettings(configuration: invalid)
        #expect(!broken.limitsAreValid)
        #expect(throws: CurlewError.self) {
            try TransferSettings(session: broken, options: RequestOptions()).validate(url: url)
        }
        var own = RequestOptions()
        own.timeouts.connect = .zero
        #expect(throws: CurlewError.self) {
            try TransferSettings(session: sessionSettings(), options: own).validate(url: url)
        }
        var fixed = RequestOptions()
        fixed.timeouts.idle = .seconds(1)
        try TransferSettings(session: broken, options: fixed).validate(url: url)
    }

    @Test func requestsThatOverrideNothingShareTheSessionsSettings() async {
        var configuration = SessionConfiguration()
        configuration.maximumBodySize = 1000
        let session = Session(configuration: configuration)
        let plain = session.transferSettings(for: RequestOptions())
        #expect(plain === session.transferSettings(for: RequestOptions()))
        #expect(plain.maximumBodySize == 1000)
        var options = RequestOptions()
        options.maximumBodySize = 10
        let own = session.transferSettings(for: options)
        #expect(own !== plain)
        #expect(own.maximumBodySize == 10)
        #expect(plain.maximumBodySize == 1000, "the shared settings keep the session's value")
        await session.shutdown()
    }
}
