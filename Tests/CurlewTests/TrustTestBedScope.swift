import Curlew
import Foundation
import Logging
import Testing
import TestServer

/// One ``TrustTestBed`` (nginx with a server per certificate) for a whole suite, stopped and
/// removed after its last test.
struct TrustTestBedScope: SuiteTrait, TestScoping {
    @TaskLocal static var current: TrustTestBed?

    var isRecursive: Bool { false }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let bed = try await TrustTestBed.start()
        do {
            try await Self.$current.withValue(bed) { try await function() }
        } catch {
            await bed.stop()
            throw error
        }
        await bed.stop()
    }

    static func bed() throws -> TrustTestBed {
        try #require(current, "the suite needs the .trustTestBed trait")
    }
}

extension Trait where Self == TrustTestBedScope {
    /// Runs the suite against one trust test bed.
    static var trustTestBed: Self { TrustTestBedScope() }
}

/// Helpers shared by the trust and mTLS suites.
enum TrustTesting {
    static func session(_ trust: TrustConfiguration, logger: Logger? = nil) -> Session {
        var configuration = SessionConfiguration()
        configuration.trust = trust
        configuration.logger = logger
        return Session(configuration: configuration)
    }

    static func session(default policy: TrustPolicy) -> Session {
        session(TrustConfiguration(default: policy))
    }

    /// A path no other request uses, to look for in the access log.
    static func marker(_ name: String) -> String { "/\(name)-\(UUID().uuidString)" }

    /// The body of a request that must succeed.
    static func text(_ session: Session, _ url: URL) async throws -> String {
        try await session.request(url).validate().string()
    }

    /// The error of a request that must fail.
    static func failure(_ session: Session, _ url: URL) async -> CurlewError? {
        do {
            _ = try await session.request(url).validate().data()
            return nil
        } catch {
            return error
        }
    }
}

/// Requests against a trust test bed that must be refused before they are written, or accepted.
protocol TrustTestBedChecks {}

extension TrustTestBedChecks {
    typealias Server = TrustTestBed.Server

    /// Fails `url` under `session`, expecting `kind`, and checks nginx never saw the request.
    func expectRejected(
        _ session: Session, _ bed: TrustTestBed, _ server: TrustTestBed.Server, host: String = "localhost",
        kind: CurlewError.Kind, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> CurlewError {
        let marker = TrustTesting.marker("rejected")
        let error = try #require(
            await TrustTesting.failure(session, bed.url(server, marker, host: host)), sourceLocation: sourceLocation)
        #expect(error.kind == kind, "\(error)", sourceLocation: sourceLocation)
        #expect(try await !bed.receivedBefore(barrierOn: server, marker), "the request reached nginx", sourceLocation: sourceLocation)
        return error
    }

    func expectAccepted(
        _ session: Session, _ bed: TrustTestBed, _ server: TrustTestBed.Server, host: String = "localhost",
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let marker = TrustTesting.marker("accepted")
        let body = try await TrustTesting.text(session, bed.url(server, marker, host: host))
        #expect(body.hasPrefix("ok"), sourceLocation: sourceLocation)
        #expect(await bed.received(marker), "the control request is not in the access log", sourceLocation: sourceLocation)
    }
}
