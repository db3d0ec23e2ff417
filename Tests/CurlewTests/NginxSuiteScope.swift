import Testing
import TestServer

/// One nginx for a whole suite: started before its first test, stopped (and its temporary
/// prefix directory removed) after its last, so nothing is left in the temporary folder.
/// Tests read it from ``NginxSuiteScope/current``.
struct NginxSuiteScope: SuiteTrait, TestScoping {
    @TaskLocal static var current: NginxServer?

    let fixedResponses: [String: String]

    var isRecursive: Bool { false }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let nginx = try await NginxServer.start(fixedResponses: fixedResponses)
        do {
            try await Self.$current.withValue(nginx) { try await function() }
        } catch {
            await nginx.stop()
            throw error
        }
        await nginx.stop()
    }

    /// The suite's nginx; fails the test when it runs outside the scope.
    static func server() throws -> NginxServer {
        try #require(current, "the suite needs the .nginx(…) trait")
    }
}

extension Trait where Self == NginxSuiteScope {
    /// Runs the suite against one nginx serving `fixedResponses`.
    static func nginx(fixedResponses: [String: String] = [:]) -> Self {
        NginxSuiteScope(fixedResponses: fixedResponses)
    }
}
