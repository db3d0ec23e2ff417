import Curlew
import Foundation
import HTTPTypes
import Logging
import Testing
import TestServer

@Suite("Secrets never appear in errors, cURL commands or logs")
struct SecretRedactionTests {
    static let password = "pw-s3cr3t-9f2"

    /// `url` with `ann:password@` as its user info.
    private func withCredentials(_ url: URL) -> URL {
        let text = url.absoluteString.replacingOccurrences(of: "://", with: "://ann:\(Self.password)@")
        return URL(string: text) ?? url
    }

    @Test func theURLPasswordIsStillSentButNotShownInErrors() async throws {
        let server = try await Fixtures.server()
        let session = Fixtures.session
        // The password reaches the server: redaction is only for what is printed.
        let echo = try Fixtures.echo(try await session.request(withCredentials(server.url("/anything"))).data())
        let basic = "Basic " + Data("ann:\(Self.password)".utf8).base64EncodedString()
        #expect(echo.headers["authorization"] == basic)

        do {
            _ = try await session.request(withCredentials(server.url("/status/500"))).validate().data()
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .unacceptableStatus)
            #expect(!error.description.contains(Self.password))
            #expect(error.description.contains("ann:***@127.0.0.1"), "the user name stays: \(error.description)")
            #expect(error.url?.absoluteString.contains(Self.password) == false)
            #expect(error.url?.user == "ann")
            #expect(!"\(error)".contains(Self.password))
            #expect(error.localizedDescription.contains(Self.password) == false)
        }
    }

    @Test func transportAndInvalidURLErrorsAreRedacted() async throws {
        let port = try closedLoopbackPort()
        let refused = await failure(Fixtures.session.request("http://ann:\(Self.password)@127.0.0.1:\(port)/x"))
        #expect(refused?.kind == .connectionRefused)
        #expect(refused?.description.contains(Self.password) == false)
        #expect(refused?.description.contains("http://ann:***@127.0.0.1:\(port)/x") == true)

        let invalid = await failure(Fixtures.session.request("http://ann:\(Self.password)@exa mple.com/x"))
        #expect(invalid?.kind == .invalidURL)
        #expect(invalid?.description.contains(Self.password) == false)
        #expect(invalid?.description.contains("ann:***@") == true)
    }

    @Test func aRedirectTargetWithAPasswordIsRedactedInTheError() async throws {
        let server = try await Fixtures.server()
        let target = "ftp://ann:\(Self.password)@127.0.0.1/file"
        let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target
        let error = await failure(Fixtures.session.request(server.url("/redirect-to?url=\(encoded)")))
        #expect(error?.kind == .unsupportedScheme)
        #expect(error?.message.contains("ftp://ann:***@127.0.0.1/file") == true, "\(String(describing: error))")
        #expect(error?.description.contains(Self.password) == false)
    }

    @Test func cURLDescriptionHidesPasswordAndCredentialHeaders() async throws {
        let server = try await Fixtures.server()
        var configuration = SessionConfiguration()
        configuration.defaultHeaders = [.proxyAuthorization: "Basic cHJveHk6\(Self.password)"]
        let session = Session(configuration: configuration)
        defer { Task { await session.shutdown() } }
        let request = session.request(
            withCredentials(server.url("/anything")),
            headers: ["Authorization": "Bearer tok-\(Self.password)", "Cookie": "sid=\(Self.password)", "X-Plain": "visible"])
        let command = request.cURLDescription()
        #expect(!command.contains(Self.password), "\(command)")
        #expect(command.contains("'http://ann:***@127.0.0.1:"))
        #expect(command.contains("'Authorization: Bearer ***'"))
        #expect(command.contains("'Proxy-Authorization: Basic ***'"))
        #expect(command.contains("'Cookie: ***'"))
        #expect(command.contains("'X-Plain: visible'"))

        let download = session.download(withCredentials(server.url("/bytes/1")), to: .directory(FileManager.default.temporaryDirectory))
        #expect(!download.cURLDescription().contains(Self.password))
        #expect(download.cURLDescription().contains("ann:***@"))
    }

    @Test func theLoggingMonitorNeverLogsTheURLPassword() async throws {
        let server = try await Fixtures.server()
        let messages = Recorder<(Logger.Level, String)>()
        let logger = Logger(label: "test") { _ in CapturingLogHandler(messages: messages) }
        var configuration = SessionConfiguration()
        configuration.eventMonitors = [LoggingEventMonitor(logger: logger, detail: .everything)]
        let session = Session(configuration: configuration, interceptors: [RetryPolicy(retryLimit: 1, backoffScale: .milliseconds(5))])
        defer { Task { await session.shutdown() } }
        _ = try await session.request(withCredentials(server.url("/anything/ok"))).data()
        _ = try? await session.request(withCredentials(server.url("/status/503"))).validate().data()
        let port = try closedLoopbackPort()
        _ = try? await session.request("http://ann:\(Self.password)@127.0.0.1:\(port)/refused").data()
        let logged = messages.all.map(\.1)
        // Start, finish; start, retry, start, failure; start, retry, start, failure.
        #expect(logged.count >= 8, "\(logged)")
        #expect(logged.allSatisfy { !$0.contains(Self.password) }, "\(logged)")
        #expect(logged.filter { $0.contains("ann:***@127.0.0.1") }.count == logged.count, "every line names the URL")
    }

    @Test func redactionKeepsURLsWithoutPasswordsIntact() async throws {
        let port = try closedLoopbackPort()
        // An "@" outside the authority, and a user without a password, are not secrets.
        let plain = "http://ann@127.0.0.1:\(port)/mail/a@b?to=x@y"
        let error = await failure(Fixtures.session.request(plain))
        #expect(error?.url?.absoluteString == plain)
        #expect(error?.description.contains(plain) == true)
    }

    private func failure(_ request: DataRequest) async -> CurlewError? {
        do {
            _ = try await request.data()
            return nil
        } catch {
            return error
        }
    }
}
