@testable import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

/// The app's own error, as a "clarify error" interceptor makes it.
enum MyAppError: Error, Equatable {
    case offline
    case server(code: Int, message: String)
    case other(String)
}

/// HTTPTransport's `ClarifyErrorInterceptor`, written against Curlew: a JSON error body becomes
/// `MyAppError.server`, a refused connection `MyAppError.offline`.
struct ClarifyingInterceptor: RequestInterceptor, ResponseInterceptor {
    struct Body: Decodable { let code: Int; let message: String }

    func intercept(_ response: Response<Data>, for session: Session) async throws -> Response<Data> {
        guard response.status.code >= 400, let body = try? JSONDecoder().decode(Body.self, from: response.value) else {
            return response
        }
        throw MyAppError.server(code: body.code, message: body.message)
    }

    func intercept(_ failure: FailedAttempt, for session: Session) async throws {
        if failure.error.kind == .connectionRefused { throw MyAppError.offline }
    }
}

/// An interceptor written before failures were shown: it implements only the response side.
struct ResponseOnlyInterceptor: RequestInterceptor, ResponseInterceptor {
    func intercept(_ response: Response<Data>, for session: Session) async throws -> Response<Data> { response }
}

/// A failure interceptor that records what it saw and leaves it, or throws `replacement`.
struct RecordingFailureInterceptor: RequestInterceptor, ResponseInterceptor {
    let name: String
    let seen: Recorder<(name: String, kind: CurlewError.Kind, underlying: MyAppError?, attempt: Int)>
    var replacement: (any Error & Sendable)?

    func intercept(_ failure: FailedAttempt, for session: Session) async throws {
        seen.append((name, failure.error.kind, failure.error.underlying as? MyAppError, failure.attempt))
        if let replacement { throw replacement }
    }
}

@Suite("Response interceptors that see failed transfers")
struct FailureInterceptionTests {
    @Test func aRefusedConnectionBecomesTheAppsOfflineErrorAndRetriersStillSeeIt() async throws {
        let port = try closedLoopbackPort()
        let retriersSaw = Recorder<(CurlewError.Kind, MyAppError?)>()
        let retrier = Interceptor.retrier { _, _, error, context in
            retriersSaw.append((error.kind, error.underlying as? MyAppError))
            return context.attempt < 2 ? .retry : .doNotRetry
        }
        let session = Session(interceptors: [ClarifyingInterceptor(), retrier])
        defer { Task { await session.shutdown() } }
        let result = await session.request("http://127.0.0.1:\(port)/x").dataResult()
        guard case .failure(let error) = result else {
            Issue.record("nothing listens there")
            return
        }
        #expect(error.underlying as? MyAppError == .offline)
        #expect(error.kind == .connectionRefused, "the kind stays, so RetryPolicy still recognises the failure")
        #expect(error.curlCode == 7)
        #expect(retriersSaw.all.map(\.0) == [.connectionRefused, .connectionRefused], "asked after each of two attempts")
        #expect(retriersSaw.all.map(\.1) == [.offline, .offline], "the retriers saw the clarified failure")
    }

    @Test func aJSONErrorBodyBecomesTheAppsServerError() async throws {
        let counter = CallCounter()
        let server = try await ScriptedHTTPServer.start { _ in
            counter.next() <= 2 ? .json(["code": 500, "message": "Database error"], status: 500) : .json(["ok": true])
        }
        defer { Task { await server.shutdown() } }
        let plain = Session(interceptors: [ClarifyingInterceptor()])
        defer { Task { await plain.shutdown() } }
        let error = await failure(plain.request(server.url("/db")))
        #expect(error?.underlying as? MyAppError == .server(code: 500, message: "Database error"))
        #expect(error?.status?.code == 500, "the status, head and body stay on the error")
        #expect(error?.responseJSON["message"] == "Database error")

        // The same error is a failure RetryPolicy retries (a 500 of a GET): retriers see it.
        let retrying = Session(interceptors: [ClarifyingInterceptor(), RetryPolicy(retryLimit: 1, backoffScale: .milliseconds(1))])
        defer { Task { await retrying.shutdown() } }
        let response = try await retrying.request(server.url("/db")).serialized(by: .data)
        #expect(response.attempts == 2)
        #expect(counter.count() == 3)
    }

    @Test func anInterceptorThatLeavesAFailureChangesNothing() async throws {
        let port = try closedLoopbackPort()
        let url = "http://127.0.0.1:\(port)/same"
        let bare = await failure(Fixtures.session.request(url))
        let seen = Recorder<(name: String, kind: CurlewError.Kind, underlying: MyAppError?, attempt: Int)>()
        let session = Session(interceptors: [
            RecordingFailureInterceptor(name: "watch", seen: seen), ResponseOnlyInterceptor(),
            Interceptor.failure { _, _ in },
        ])
        defer { Task { await session.shutdown() } }
        let watched = await failure(session.request(url))
        #expect(seen.all.map(\.kind) == [.connectionRefused])
        #expect(watched?.kind == bare?.kind)
        // libcurl's message carries the time the attempt took ("after 32 ms"): compare without it.
        let withoutTiming = { (message: String?) in message?.replacing(/after \d+ ms/, with: "after … ms") }
        #expect(withoutTiming(watched?.message) == withoutTiming(bare?.message))
        #expect(watched?.curlCode == bare?.curlCode)
        #expect(watched?.url == bare?.url)
        #expect(watched?.underlying == nil)
    }

    @Test func interceptorsRunInOrderEachSeeingTheFailureAsTheOnesBeforeLeftIt() async throws {
        let port = try closedLoopbackPort()
        let seen = Recorder<(name: String, kind: CurlewError.Kind, underlying: MyAppError?, attempt: Int)>()
        let session = Session(interceptors: [
            RecordingFailureInterceptor(name: "first", seen: seen),
            RecordingFailureInterceptor(name: "offline", seen: seen, replacement: MyAppError.offline),
            RecordingFailureInterceptor(name: "after", seen: seen),
            Interceptor.retrier { _, _, _, context in context.attempt < 2 ? .retry : .doNotRetry },
        ])
        defer { Task { await session.shutdown() } }
        let replacement = CurlewError(.validationFailed, "replaced by the request's own interceptor")
        let error = await failure(
            session.request("http://127.0.0.1:\(port)/order")
                .intercept(with: RecordingFailureInterceptor(name: "own", seen: seen, replacement: replacement)))
        let order = seen.all.map { "\($0.attempt):\($0.name)" }
        #expect(order == ["1:first", "1:offline", "1:after", "1:own", "2:first", "2:offline", "2:after", "2:own"])
        #expect(seen.all.filter { $0.name == "first" }.allSatisfy { $0.underlying == nil })
        #expect(seen.all.filter { $0.name == "after" || $0.name == "own" }.allSatisfy { $0.underlying == .offline })
        // A thrown CurlewError is used as is, with the failure's URL filled in.
        #expect(error?.kind == .validationFailed)
        #expect(error?.message == "replaced by the request's own interceptor")
        #expect(error?.url?.path == "/order")
    }

    @Test func onlyFailedTransfersAreShownNotRejectedResponsesOrCancellation() async throws {
        let server = try await Fixtures.server()
        let seen = Recorder<(name: String, kind: CurlewError.Kind, underlying: MyAppError?, attempt: Int)>()
        let session = Session(interceptors: [RecordingFailureInterceptor(name: "x", seen: seen, replacement: MyAppError.other("x"))])
        defer { Task { await session.shutdown() } }
        let rejected = await failure(session.request(server.url("/status/404")).validate())
        #expect(rejected?.kind == .unacceptableStatus)
        #expect(rejected?.underlying == nil)

        // Cancelled mid-transfer, once the head has arrived.
        let request = session.request(server.url("/fault/stall-after-head"))
        var events = request.events.makeAsyncIterator()
        while let event = try await events.next() {
            if case .response = event { break }
        }
        request.cancel()
        let cancelled = await failure(request)
        // Read to the end, which keeps the events alive until here (dropping them cancels too).
        await #expect(throws: CurlewError.self) { while try await events.next() != nil {} }
        #expect(cancelled?.kind == .cancelled)
        #expect(cancelled?.underlying == nil)
        #expect(seen.count == 0)
    }

    @Test func aFailureWithAHeadShowsTheHead() async throws {
        let server = try await Fixtures.server()
        let heads = Recorder<Int>()
        let session = Session(interceptors: [Interceptor.failure { failure, _ in
            if let head = failure.responseHead { heads.append(head.status.code) }
        }])
        defer { Task { await session.shutdown() } }
        var options = RequestOptions()
        options.maximumBodySize = 10
        let error = await failure(session.request(server.url("/bytes/100"), options: options))
        #expect(error?.kind == .bodyTooLarge)
        #expect(heads.all == [200])
    }

    @Test func composedInterceptorsForwardTheFailureSide() async throws {
        let request = OutgoingRequest(url: URL(string: "http://127.0.0.1:1/")!)
        let refused = FailedAttempt(request: request, error: CurlewError(.connectionRefused, "refused"))
        let composed = Interceptor(interceptors: [ResponseOnlyInterceptor(), ClarifyingInterceptor()])
        #expect(composed.failureHandlers.count == 2)
        let clarified = await #expect(throws: CurlewError.self) { try await composed.intercept(refused, for: Fixtures.session) }
        #expect(clarified?.underlying as? MyAppError == .offline)
        let timeout = FailedAttempt(request: request, error: CurlewError(.totalTimeout, "slow"))
        try await composed.intercept(timeout, for: Fixtures.session)
        try await ResponseOnlyInterceptor().intercept(refused, for: Fixtures.session)
    }

    @Test func oneInterceptorsFailureHandlersChainLikeSeparateInterceptors() async throws {
        let request = OutgoingRequest(url: URL(string: "http://127.0.0.1:1/")!)
        let refused = FailedAttempt(request: request, error: CurlewError(.connectionRefused, "refused"))
        let seen = Recorder<MyAppError?>()
        let interceptor = Interceptor(failureHandlers: [
            { _, _ in throw MyAppError.offline },
            { failure, _ in seen.append(failure.error.underlying as? MyAppError) },
        ])
        let error = await #expect(throws: CurlewError.self) { try await interceptor.intercept(refused, for: Fixtures.session) }
        #expect(seen.all == [.offline], "the second handler saw what the first made of the failure")
        #expect(error?.kind == .connectionRefused)
        #expect(error?.underlying as? MyAppError == .offline)
        // A handler that leaves the failure throws nothing.
        try await Interceptor.failure { _, _ in }.intercept(refused, for: Fixtures.session)
    }
}
