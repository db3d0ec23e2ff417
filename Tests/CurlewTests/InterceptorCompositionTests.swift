@testable import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

/// ``Interceptor``, the interceptor built from parts: its closure factories, its combination of
/// other interceptors, and its retriers' order, against a real server and called directly.
@Suite("Interceptor built from parts")
struct InterceptorCompositionTests {
    static let orderHeader = HTTPField.Name("X-Order")!

    /// An interceptor that also sees responses: it appends its name to the body.
    struct RespondingInterceptor: RequestInterceptor, ResponseInterceptor {
        let name: String
        let calls: Recorder<String>

        func intercept(_ response: Response<Data>, for session: Session) async throws -> Response<Data> {
            calls.append("\(name) response \(response.attempts)")
            return response.map { $0 + Data(" +\(name)".utf8) }
        }
    }

    @Test func combinedInterceptorsAdaptRetryAndSeeResponsesInOrder() async throws {
        let counter = CallCounter()
        let server = try await ScriptedHTTPServer.start { request in
            counter.next() == 1 ? .text("busy", status: 503) : .text("order=\(request.header("X-Order") ?? "")")
        }
        defer { Task { await server.shutdown() } }
        let calls = Recorder<String>()
        let retries = Recorder<(String, CurlewError.Kind, Int)>()
        let combined = Interceptor(interceptors: [
            NamedAdapter(name: "a", calls: calls),
            RespondingInterceptor(name: "first", calls: calls),
            ScriptedRetrier(name: "undecided", calls: retries) { _, _ in .doNotRetry },
            ScriptedRetrier(name: "decider", calls: retries) { _, attempt in attempt == 1 ? .retry : .doNotRetry },
            ScriptedRetrier(name: "never asked", calls: retries) { _, _ in .doNotRetry },
            RespondingInterceptor(name: "second", calls: calls),
            NamedAdapter(name: "b", calls: calls),
        ])
        #expect(combined.adapters.count == 7)
        #expect(combined.retriers.count == 7)
        #expect(combined.responseHandlers.count == 2, "only the two response interceptors handle responses")

        let session = Session(interceptors: [combined])
        defer { Task { await session.shutdown() } }
        let response = try await session.request(server.url("/combined")).validate().serialized(by: .string)
        #expect(response.value == "order=a,b +first +second")
        #expect(response.attempts == 2)
        #expect(
            calls.all == [
                "a", "b", "first response 1", "second response 1", "a", "b", "first response 2", "second response 2",
            ], "adapters in order on every attempt, then the response handlers in order, also on the 503")
        #expect(retries.all.map(\.0) == ["undecided", "decider"], "retriers run in order until one decides")
        #expect(retries.all.map(\.1) == [.unacceptableStatus, .unacceptableStatus])
        #expect(counter.count() == 2)
    }

    @Test func closureAdapterChangesEveryAttempt() async throws {
        let server = try await Fixtures.server()
        let seen = Recorder<String>()
        let tagging = Interceptor.adapter { request, session in
            var request = request
            request.headerFields[Self.orderHeader] = "tagged"
            seen.append(request.url.path)
            return request
        }
        #expect(tagging.adapters.count == 1 && tagging.retriers.isEmpty && tagging.responseHandlers.isEmpty)
        let echo = try Fixtures.echo(try await Fixtures.session.request(server.url("/anything/tag")).intercept(with: tagging).data())
        #expect(echo.headers["x-order"] == "tagged")
        #expect(seen.all == ["/anything/tag"])

        let refusing = Interceptor.adapter { _, _ in throw AdapterFailure(name: "closure") }
        let error = await #expect(throws: CurlewError.self) {
            _ = try await Fixtures.session.request(server.url("/anything/refused")).intercept(with: refusing).data()
        }
        #expect(error?.kind == .invalidRequest)
        #expect((error?.underlying as? AdapterFailure)?.name == "closure")
        #expect(server.requestCount(path: "/anything/refused") == 0, "a failed adapter sends nothing")
    }

    @Test func closureRetrierSeesTheContextOfEachFailedAttempt() async throws {
        let server = try await Fixtures.server()
        let contexts = Recorder<(Int, Bool, CurlewError.Kind, String)>()
        let retrier = Interceptor.retrier { request, _, error, context in
            contexts.append((context.attempt, context.attemptStart >= context.firstAttemptStart, error.kind, request.url.path))
            return context.attempt < 3 ? .retry : .doNotRetry
        }
        #expect(retrier.retriers.count == 1 && retrier.adapters.isEmpty && retrier.responseHandlers.isEmpty)
        let path = "/flaky/closure-\(UUID().uuidString)"
        let error = await #expect(throws: CurlewError.self) {
            _ = try await Fixtures.session.request(server.url(path + "?failures=5")).intercept(with: retrier).validate().data()
        }
        #expect(error?.kind == .unacceptableStatus)
        #expect(contexts.all.map(\.0) == [1, 2, 3])
        #expect(contexts.all.allSatisfy { $0.1 && $0.2 == .unacceptableStatus && $0.3 == path })
        #expect(server.requestCount(path: path) == 3)
    }

    private func sampleRequest() -> OutgoingRequest {
        OutgoingRequest(url: URL(string: "http://127.0.0.1:9/direct")!)
    }

    @Test func eachRetrierGetsTheContextItWasGiven() async throws {
        let start = ContinuousClock.now
        let contexts = Recorder<RetryContext>()
        let delaying = Interceptor.retrier { _, _, _, context in
            contexts.append(context)
            return .retryWithDelay(.milliseconds(context.attempt))
        }
        let combined = Interceptor(retriers: [
            Interceptor.retrier { _, _, _, context in
                contexts.append(context)
                return .doNotRetry
            },
            delaying,
        ])
        let error = CurlewError(.idleTimeout, "quiet")
        let decision = await combined.retry(sampleRequest(), for: Fixtures.session, dueTo: error, context: RetryContext(attempt: 4, firstAttemptStart: start, attemptStart: start))
        guard case .retryWithDelay(let delay) = decision else {
            Issue.record("expected the second retrier's decision, got \(decision)")
            return
        }
        #expect(delay == .milliseconds(4))
        #expect(contexts.all.map(\.attempt) == [4, 4])
        #expect(contexts.all.allSatisfy { $0.firstAttemptStart == start && $0.attemptStart == start })

        // The closure retrier itself passes the context on as it is.
        let single: any RequestRetrier = try #require(delaying.retriers.first)
        #expect(!(single is Interceptor))
        guard case .retryWithDelay(let other) = await single.retry(sampleRequest(), for: Fixtures.session, dueTo: error, context: RetryContext(attempt: 9, firstAttemptStart: start, attemptStart: start))
        else {
            Issue.record("expected a delay")
            return
        }
        #expect(other == .milliseconds(9))
        #expect(contexts.all.last.map { $0.firstAttemptStart == $0.attemptStart } == true)
        #expect(contexts.all.last?.attempt == 9)

        let undecided = Interceptor(retriers: [combined.retriers[0]])
        guard case .doNotRetry = await undecided.retry(sampleRequest(), for: Fixtures.session, dueTo: error, context: RetryContext(attempt: 1, firstAttemptStart: .now, attemptStart: .now)) else {
            Issue.record("no retrier decided: expected doNotRetry")
            return
        }
    }

    @Test func directAdaptRunsTheAdaptersInOrder() async throws {
        let combined = Interceptor(
            adapters: [
                Interceptor.adapter { request, _ in
                    var request = request
                    request.headerFields[Self.orderHeader] = "one"
                    return request
                },
                Interceptor.adapter { request, _ in
                    var request = request
                    request.headerFields[Self.orderHeader] = (request.headerFields[Self.orderHeader] ?? "") + ",two"
                    return request
                },
            ]
        )
        let adapted = try await combined.adapt(sampleRequest(), for: Fixtures.session)
        #expect(adapted.headerFields[Self.orderHeader] == "one,two")
        #expect(adapted.url == sampleRequest().url)
    }
}
