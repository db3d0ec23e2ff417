@testable import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

@Suite("RetryPolicy against local servers")
struct RetryNetworkTests {
    let fast = RetryPolicy(retryLimit: 3, backoffScale: .milliseconds(20), maximumDelay: .milliseconds(200))

    /// A server whose path `/fail/{n}/...` fails n times with `status`, then answers 200.
    func flakyServer(status: Int = 503, headers: [(String, String)] = [], counter: CallCounter) async throws
        -> ScriptedHTTPServer
    {
        try await ScriptedHTTPServer.start { request in
            let parts = request.path.split(separator: "/")
            let failures = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            let call = counter.next(request.path)
            if call <= failures {
                if status == 0 { return .dropConnection }
                return .text("failure \(call)", status: status, headers: headers)
            }
            return .text("ok after \(call - 1) failures")
        }
    }

    @Test func retriesAFailingStatusUntilItSucceeds() async throws {
        let counter = CallCounter()
        let server = try await flakyServer(counter: counter)
        defer { Task { await server.shutdown() } }
        let session = Session(interceptors: [fast])
        defer { Task { await session.shutdown() } }
        let response = try await session.request(server.url("/fail/2/a")).validate().serialized(by: .string)
        #expect(response.value == "ok after 2 failures")
        #expect(response.attempts == 3)
        #expect(counter.count("/fail/2/a") == 3)
    }

    @Test func givesUpAfterTheLimitWithTheLastStatus() async throws {
        let counter = CallCounter()
        let server = try await flakyServer(status: 502, counter: counter)
        defer { Task { await server.shutdown() } }
        let session = Session(interceptors: [fast])
        defer { Task { await session.shutdown() } }
        do {
            _ = try await session.request(server.url("/fail/99/b")).validate().data()
            Issue.record("expected the policy to give up")
        } catch {
            #expect(error.kind == .retryLimitExceeded)
            #expect(error.status?.code == 502)
            #expect(error.responseBodyText == "failure 4")
        }
        #expect(counter.count("/fail/99/b") == 4, "one attempt and three retries")
    }

    @Test func doesNotRetryNonIdempotentMethodsOrOtherStatuses() async throws {
        let counter = CallCounter()
        let server = try await flakyServer(counter: counter)
        defer { Task { await server.shutdown() } }
        let session = Session(interceptors: [fast])
        defer { Task { await session.shutdown() } }
        do {
            _ = try await session.request(server.url("/fail/1/post"), method: .post, body: .string("x")).validate().data()
            Issue.record("expected the 503")
        } catch {
            #expect(error.kind == .unacceptableStatus)
        }
        #expect(counter.count("/fail/1/post") == 1)

        let missing = CallCounter()
        let notFound = try await ScriptedHTTPServer.start { _ in
            _ = missing.next()
            return .text("no such thing", status: 404)
        }
        defer { Task { await notFound.shutdown() } }
        await #expect(throws: CurlewError.self) {
            try await session.request(notFound.url("/missing")).validate().data()
        }
        #expect(missing.count() == 1)
    }

    @Test func honoursRetryAfter() async throws {
        let counter = CallCounter()
        let server = try await flakyServer(status: 429, headers: [("Retry-After", "1")], counter: counter)
        defer { Task { await server.shutdown() } }
        let patient = RetryPolicy(retryLimit: 3, backoffScale: .milliseconds(20), maximumDelay: .seconds(2))
        let session = Session(interceptors: [patient])
        defer { Task { await session.shutdown() } }
        let started = ContinuousClock.now
        let text = try await session.request(server.url("/fail/1/c")).validate().string()
        #expect(text == "ok after 1 failures")
        #expect(ContinuousClock.now - started >= .milliseconds(950), "the 20 ms backoff was replaced by Retry-After: 1")

        // A Retry-After longer than the cap makes the policy give up instead of retrying early.
        let impatient = Session(interceptors: [fast])
        defer { Task { await impatient.shutdown() } }
        do {
            _ = try await impatient.request(server.url("/fail/1/c2")).validate().data()
            Issue.record("expected the policy to give up")
        } catch {
            #expect(error.kind == .retryLimitExceeded)
            #expect(error.status?.code == 429)
        }
        #expect(counter.count("/fail/1/c2") == 1)
    }

    @Test func retriesDroppedConnectionsWithTheConnectionLostPolicy() async throws {
        let counter = CallCounter()
        let server = try await flakyServer(status: 0, counter: counter)
        defer { Task { await server.shutdown() } }
        let session = Session(interceptors: [RetryPolicy.connectionLostOnly(backoffScale: .milliseconds(10))])
        defer { Task { await session.shutdown() } }
        let response = try await session.request(server.url("/fail/2/d")).serialized(by: .string)
        #expect(response.value == "ok after 2 failures")
        #expect(response.attempts == 3)

        let unprotected = Session()
        defer { Task { await unprotected.shutdown() } }
        do {
            _ = try await unprotected.request(server.url("/fail/1/e")).data()
            Issue.record("without a policy the dropped connection is an error")
        } catch {
            #expect(RetryPolicy.lostConnectionCurlCodes.contains(error.curlCode ?? -1))
        }
    }

    @Test func retriesConnectionRefusedAndReportsTheUnderlyingError() async throws {
        let port = try closedLoopbackPort()
        let session = Session(interceptors: [RetryPolicy(retryLimit: 2, backoffScale: .milliseconds(10))])
        defer { Task { await session.shutdown() } }
        do {
            _ = try await session.request("http://127.0.0.1:\(port)/").data()
            Issue.record("expected a failure")
        } catch {
            #expect(error.kind == .retryLimitExceeded)
            #expect((error.underlying as? CurlewError)?.kind == .connectionRefused)
            #expect(error.curlCode == 7)
            #expect(error.message.contains("3 attempts"))
        }
    }

    @Test func deadlineBoundsTheWholeRequest() async throws {
        let counter = CallCounter()
        let server = try await flakyServer(counter: counter)
        defer { Task { await server.shutdown() } }
        let policy = RetryPolicy(retryLimit: 100, backoffScale: .milliseconds(100), maximumDelay: .milliseconds(100), deadline: .milliseconds(700), jitter: .disabled)
        let session = Session(interceptors: [policy])
        defer { Task { await session.shutdown() } }
        do {
            _ = try await session.request(server.url("/fail/1000/f")).validate().data()
            Issue.record("expected the deadline to stop the retries")
        } catch {
            #expect(error.kind == .retryLimitExceeded)
            #expect(error.message.contains("deadline"))
        }
        // Without the deadline, all 101 attempts would run: the count proves the deadline stopped
        // them (a wall-clock bound here failed on a machine loaded 16-fold). About 0.7 s / 0.1 s
        // attempts when idle; fewer on a loaded machine, never unbounded.
        #expect((1...9).contains(counter.count("/fail/1000/f")), "got \(counter.count("/fail/1000/f")) attempts")
    }
}
