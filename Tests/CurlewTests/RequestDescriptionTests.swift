import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

/// `print(request)` and `debugPrint(request)`: the request line with its status once there is
/// one, and the curl command after the adapters once the request has run; secrets never show.
@Suite("Printing requests: description and debugDescription")
struct RequestDescriptionTests {
    private static let credentials: HTTPFields = [.authorization: "Bearer tok"]

    /// `url` with `user:secret@` as its user info.
    private func withPassword(_ url: URL) -> String {
        url.absoluteString.replacingOccurrences(of: "://", with: "://user:secret@")
    }

    private func expectNoSecrets(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!text.contains("secret"), "\(text)", sourceLocation: sourceLocation)
        #expect(!text.contains("tok"), "\(text)", sourceLocation: sourceLocation)
    }

    /// The HTTP version, the time limits and the redirect policy a request runs with print as
    /// the curl flags that do the same; the session's defaults print too (curl's own defaults
    /// are to wait 300 s to connect and not to follow redirects).
    @Test func theVersionTimeLimitsAndRedirectPolicyPrintAsCurlFlags() async throws {
        let session = Session()
        var options = RequestOptions()
        options.httpVersion = .http1_1
        options.timeouts = Timeouts(
            connect: .milliseconds(2500), total: .seconds(90), minimumSpeed: MinimumSpeed(bytesPerSecond: 100, over: .seconds(20)))
        options.redirectPolicy = .follow(maximum: 3)
        let given = String(reflecting: session.request("http://127.0.0.1:9/x", options: options))
        #expect(given.contains(" --http1.1 --connect-timeout 2.5 --max-time 90 --speed-limit 100 --speed-time 20 -L --max-redirs 3 "), "\(given)")
        let defaults = String(reflecting: session.request("http://127.0.0.1:9/x"))
        #expect(defaults.contains(" --connect-timeout 30 -L --max-redirs 10 "), "\(defaults)")
        #expect(!defaults.contains("--http") && !defaults.contains("--max-time"), "\(defaults)")
        options = RequestOptions()
        options.httpVersion = .http2PriorKnowledge
        options.redirectPolicy = .doNotFollow
        let other = String(reflecting: session.request("http://127.0.0.1:9/x", options: options))
        #expect(other.contains(" --http2-prior-knowledge ") && !other.contains(" -L "), "\(other)")
        await session.shutdown()
    }

    @Test func theStatusShowsOnlyAfterTheRunAndSecretsNever() async throws {
        let server = try await Fixtures.server()
        let path = "/anything/describe-\(UUID().uuidString)"
        let request = Fixtures.session.request(withPassword(server.url(path)), headers: RequestHeaders(Self.credentials))
        let line = "GET http://user:***@127.0.0.1:\(server.port)\(path)"

        #expect(String(describing: request) == line)
        let command = String(reflecting: request)
        #expect(command.hasPrefix("curl "), "\(command)")
        #expect(command.contains("'Authorization: Bearer ***'"), "\(command)")
        #expect(command.hasSuffix("'http://user:***@127.0.0.1:\(server.port)\(path)'"), "\(command)")
        expectNoSecrets(String(describing: request))
        expectNoSecrets(command)
        #expect(server.requestCount(path: path) == 0, "printing does not start the request")

        // The password and the token still reach the server: redaction is only for printing.
        let echo = try Fixtures.echo(try await request.data())
        #expect(echo.headers["authorization"] == "Bearer tok")

        #expect(String(describing: request) == line + " (200)")
        expectNoSecrets(String(describing: request))
        expectNoSecrets(String(reflecting: request))
        #expect(String(reflecting: request).contains("'Authorization: Bearer ***'"))
    }

    @Test func theCommandShowsWhatTheAdaptersAddedOnlyAfterTheRun() async throws {
        let server = try await Fixtures.server()
        let session = Session(interceptors: [NamedAdapter(name: "session-adapter", calls: Recorder())])
        let request = session.request(server.url("/anything"), headers: RequestHeaders(Self.credentials))
            .intercept(with: NamedAdapter(name: "own-adapter", calls: Recorder()))
        #expect(!String(reflecting: request).contains("X-Order"))
        _ = try await request.data()
        let after = String(reflecting: request)
        await session.shutdown()
        #expect(after.contains("-H 'X-Order: session-adapter,own-adapter'"), "\(after)")
        expectNoSecrets(after)
        // `cURLDescription()` is the same command: one way to print a request.
        #expect(request.cURLDescription() == after)
    }

    @Test func aFailedRequestSaysWhyBrieflyAndShowsItsAdaptedCommand() async throws {
        let server = try await Fixtures.server()
        let session = Session(interceptors: [NamedAdapter(name: "adapted", calls: Recorder())])
        let rejected = session.request(withPassword(server.url("/status/404")), headers: RequestHeaders(Self.credentials)).validate()
        _ = try? await rejected.data()
        let port = try closedLoopbackPort()
        let refused = session.request("http://127.0.0.1:\(port)/x")
        _ = try? await refused.data()
        await session.shutdown()

        #expect(String(describing: rejected) == "GET http://user:***@127.0.0.1:\(server.port)/status/404 (404, failed: unacceptableStatus)")
        #expect(String(reflecting: rejected).contains("-H 'X-Order: adapted'"), "the adapted request of the last attempt")
        expectNoSecrets(String(reflecting: rejected))
        #expect(String(describing: refused) == "GET http://127.0.0.1:\(port)/x (failed: connectionRefused)")
    }

    @Test func aRequestThatCannotBeBuiltSaysSo() async throws {
        let invalid = Fixtures.session.request("http://user:secret@exa mple.com/x", headers: RequestHeaders(Self.credentials))
        let before = String(describing: invalid)
        _ = try? await invalid.data()
        for text in [before, String(describing: invalid)] {
            #expect(text.hasPrefix("invalid request (invalidURL: "), "\(text)")
            #expect(text.contains("user:***@"), "\(text)")
            expectNoSecrets(text)
        }
        #expect(String(reflecting: invalid).hasPrefix("# invalid request"))
        expectNoSecrets(String(reflecting: invalid))
    }

    @Test func aStreamShowsItsStatusOnceTheHeadArrived() async throws {
        let server = try await Fixtures.server()
        let session = Session(interceptors: [NamedAdapter(name: "streamed", calls: Recorder())])
        let request = session.request(server.url("/bytes/64"))
        #expect(String(describing: request) == "GET http://127.0.0.1:\(server.port)/bytes/64")
        var during: (String, String)?
        for try await _ in request.bytes where during == nil {
            during = (String(describing: request), String(reflecting: request))
        }
        await session.shutdown()
        #expect(during?.0 == "GET http://127.0.0.1:\(server.port)/bytes/64 (200)")
        #expect(during?.1.contains("-H 'X-Order: streamed'") == true, "\(during?.1 ?? "")")
    }

    @Test func aDownloadDescribesItselfToo() async throws {
        let server = try await Fixtures.server()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("describe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let download = Fixtures.session.download(withPassword(server.url("/bytes/16")), to: .directory(directory))
        #expect(String(describing: download) == "GET http://user:***@127.0.0.1:\(server.port)/bytes/16")
        let response = try await download.response
        #expect(String(describing: download) == "GET http://user:***@127.0.0.1:\(server.port)/bytes/16 (200)")
        #expect(String(reflecting: download).hasPrefix("curl "))
        expectNoSecrets(String(reflecting: download))
        let printed = String(reflecting: response)
        #expect(printed.contains("[Value]: \(response.value)"), "a download's value is its file: \(printed)")
        expectNoSecrets(printed)
    }

    @Test func aResponseFromTheNetworkPrintsWithoutSecrets() async throws {
        let server = try await Fixtures.server()
        let response = try await Fixtures.session.request(withPassword(server.url("/status/201")), headers: RequestHeaders(Self.credentials)).response
        #expect(String(describing: response) == "GET http://user:***@127.0.0.1:\(server.port)/status/201 (201)")
        let printed = String(reflecting: response)
        #expect(printed.hasPrefix("[Request]: GET http://user:***@127.0.0.1:\(server.port)/status/201\n"), "\(printed)")
        #expect(printed.contains("\n        Authorization: Bearer ***\n"), "\(printed)")
        #expect(printed.contains("\n[Response]: 201 Created\n"), "\(printed)")
        #expect(printed.contains("\n    [Body]:\n        {\"status\":201}"), "\(printed)")
        #expect(printed.contains("\n[Network Duration]: "), "\(printed)")
        expectNoSecrets(printed)
    }
}
