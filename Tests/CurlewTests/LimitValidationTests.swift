import Curlew
import Foundation
import Testing
import TestServer

@Suite("Zero and negative limits are rejected, not given surprising meanings")
struct LimitValidationTests {
    enum Field: String, CaseIterable, Sendable {
        case connect, total, idle
    }

    @Test(arguments: Field.allCases, [Duration.zero, .milliseconds(-1), .seconds(-30)])
    func aNonPositiveRequestTimeoutIsInvalid(_ field: Field, _ value: Duration) async throws {
        let server = try await Fixtures.server()
        let path = "/anything/timeout-\(field)-\(UUID().uuidString)"
        var options = RequestOptions()
        switch field {
        case .connect: options.timeouts.connect = value
        case .total: options.timeouts.total = value
        case .idle: options.timeouts.idle = value
        }
        let error = await failure(Fixtures.session.request(server.url(path), options: options))
        #expect(error?.kind == .invalidRequest)
        #expect(error?.message.contains("the \(field.rawValue) timeout must be positive") == true, "\(String(describing: error))")
        #expect(server.requestCount(path: path) == 0, "the request never leaves")
    }

    @Test(arguments: Field.allCases)
    func aNonPositiveSessionTimeoutIsInvalid(_ field: Field) async throws {
        let server = try await Fixtures.server()
        var configuration = SessionConfiguration()
        switch field {
        case .connect: configuration.timeouts.connect = .zero
        case .total: configuration.timeouts.total = .seconds(-1)
        case .idle: configuration.timeouts.idle = .zero
        }
        let session = Session(configuration: configuration)
        defer { Task { await session.shutdown() } }
        let error = await failure(session.request(server.url("/get")))
        #expect(error?.kind == .invalidRequest)
        #expect(error?.message.contains(field.rawValue) == true)
    }

    /// `.seconds(Int64.max)` as "no limit in practice": its milliseconds do not fit an `Int`,
    /// which trapped when the session was made (the connect timeout is converted then).
    @Test func anEnormousTimeoutIsNoLimitNotACrash() async throws {
        let server = try await Fixtures.server()
        let forever = Duration.seconds(Int64.max)
        var configuration = SessionConfiguration()
        configuration.timeouts = Timeouts(connect: forever, total: forever, idle: forever)
        let session = Session(configuration: configuration)
        defer { Task { await session.shutdown() } }
        var options = RequestOptions()
        options.timeouts.connect = forever
        options.timeouts.total = forever
        let body = try await session.request(server.url("/bytes/3"), options: options).validate().data()
        #expect(body.count == 3)
        #expect(try await session.request(server.url("/bytes/2")).validate().data().count == 2)
    }

    @Test func aNegativeMaximumBodySizeIsInvalid() async throws {
        let server = try await Fixtures.server()
        var options = RequestOptions()
        options.maximumBodySize = -1
        let error = await failure(Fixtures.session.request(server.url("/bytes/0"), options: options))
        #expect(error?.kind == .invalidRequest)
        #expect(error?.message.contains("maximumBodySize") == true)

        var configuration = SessionConfiguration()
        configuration.maximumBodySize = -5
        let session = Session(configuration: configuration)
        defer { Task { await session.shutdown() } }
        let fromSession = await failure(session.request(server.url("/bytes/0")))
        #expect(fromSession?.kind == .invalidRequest)
        // A request's own valid limit overrides the session's invalid one.
        var fixed = RequestOptions()
        fixed.maximumBodySize = 10
        #expect(try await session.request(server.url("/bytes/10"), options: fixed).data().count == 10)
    }

    @Test func theSmallestValidLimitsAreAccepted() async throws {
        let server = try await Fixtures.server()
        // Zero bytes is a limit, not an error: empty bodies pass, others are too large.
        var options = RequestOptions()
        options.maximumBodySize = 0
        #expect(try await Fixtures.session.request(server.url("/bytes/0"), options: options).data().isEmpty)
        let tooLarge = await failure(Fixtures.session.request(server.url("/bytes/1"), options: options))
        #expect(tooLarge?.kind == .bodyTooLarge)
        // A one-nanosecond total limit is positive: it is a (very short) timeout, not invalid.
        var tiny = RequestOptions()
        tiny.timeouts.total = .nanoseconds(1)
        let timedOut = await failure(Fixtures.session.request(server.url("/delay/500"), options: tiny))
        #expect(timedOut?.kind == .totalTimeout)
    }
}
