import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

@Suite("Interceptor pipeline: adapters, retriers, response interceptors")
struct InterceptorPipelineTests {
    @Test func adaptersRunInOrderSessionFirstAndAgainOnEveryAttempt() async throws {
        let counter = CallCounter()
        let server = try await ScriptedHTTPServer.start { request in
            let call = counter.next()
            return call < 3 ? .text("busy", status: 503) : .json(["order": request.header("X-Order") ?? ""])
        }
        defer { Task { await server.shutdown() } }
        let calls = Recorder<String>()
        let retries = Recorder<(String, CurlewError.Kind, Int)>()
        let session = Session(interceptors: [
            NamedAdapter(name: "s1", calls: calls), NamedAdapter(name: "s2", calls: calls),
            ScriptedRetrier(name: "retry", calls: retries) { _, _ in .retry },
        ])
        defer { Task { await session.shutdown() } }
        let response = try await session.request(server.url("/x"))
            .intercept(with: NamedAdapter(name: "r1", calls: calls))
            .validate()
            .serialized(by: .data)
        let body = try JSONSerialization.jsonObject(with: response.value) as? [String: String]
        #expect(body?["order"] == "s1,s2,r1", "the last attempt got a freshly adapted request, not a re-adapted one")
        #expect(response.attempts == 3)
        #expect(calls.all == ["s1", "s2", "r1", "s1", "s2", "r1", "s1", "s2", "r1"])
        #expect(retries.all.map(\.2) == [1, 2], "consulted once per failed attempt")
        #expect(retries.all.allSatisfy { $0.1 == .unacceptableStatus })
    }

    @Test func firstFailingAdapterStopsTheChainAndNothingIsSent() async throws {
        let server = try await Fixtures.server()
        let calls = Recorder<String>()
        let session = Session(interceptors: [
            NamedAdapter(name: "a", calls: calls), NamedAdapter(name: "b", calls: calls, fails: true),
            NamedAdapter(name: "c", calls: calls),
        ])
        defer { Task { await session.shutdown() } }
        let before = server.requestCount(path: "/anything/adapter-stop")
        do {
            _ = try await session.request(server.url("/anything/adapter-stop")).data()
            Issue.record("expected the adapter to fail the request")
        } catch {
            #expect(error.kind == .invalidRequest)
            #expect(error.message.contains("adapter b refused"))
            #expect(error.url?.path == "/anything/adapter-stop")
        }
        #expect(calls.all == ["a", "b"])
        #expect(server.requestCount(path: "/anything/adapter-stop") == before)
    }

    @Test func retriersRunInOrderUntilOneDecides() async throws {
        let counter = CallCounter()
        let server = try await ScriptedHTTPServer.start { _ in
            counter.next() == 1 ? .text("nope", status: 500) : .text("ok")
        }
        defer { Task { await server.shutdown() } }
        let calls = Recorder<(String, CurlewError.Kind, Int)>()
        let session = Session(interceptors: [
            ScriptedRetrier(name: "first", calls: calls) { _, _ in .doNotRetry },
            ScriptedRetrier(name: "second", calls: calls) { _, _ in .retryWithDelay(.milliseconds(20)) },
            ScriptedRetrier(name: "third", calls: calls) { _, _ in .doNotRetryWithError(AdapterFailure(name: "never")) },
        ])
        defer { Task { await session.shutdown() } }
        let response = try await session.request(server.url("/order")).validate().serialized(by: .string)
        #expect(response.value == "ok")
        #expect(response.attempts == 2)
        #expect(calls.all.map(\.0) == ["first", "second"], "the third retrier is not asked once the second decided")
    }

    @Test func doNotRetryWithErrorReplacesTheError() async throws {
        let server = try await Fixtures.server()
        let custom = Session(interceptors: [
            ScriptedRetrier(name: "x", calls: Recorder()) { _, _ in .doNotRetryWithError(AdapterFailure(name: "z")) }
        ])
        defer { Task { await custom.shutdown() } }
        do {
            _ = try await custom.request(server.url("/status/500")).validate().data()
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .retryLimitExceeded)
            #expect(error.underlying is AdapterFailure)
        }
    }

    @Test func serializerFailureIsRetriedOncePerAttemptAcrossSerializers() async throws {
        struct Payload: Decodable, Sendable { let value: Int }
        let counter = CallCounter()
        let server = try await ScriptedHTTPServer.start { _ in
            counter.next() == 1 ? .text("<html>maintenance</html>") : .json(["value": 42])
        }
        defer { Task { await server.shutdown() } }
        let calls = Recorder<(String, CurlewError.Kind, Int)>()
        let session = Session(interceptors: [
            ScriptedRetrier(name: "r", calls: calls) { error, attempt in
                error.kind == .serializationFailed && attempt < 3 ? .retry : .doNotRetry
            }
        ])
        defer { Task { await session.shutdown() } }
        let request = session.request(server.url("/payload"))
        async let first = request.decode(Payload.self)
        async let second = request.serialized(by: .decodable(Payload.self))
        let (value, response) = try await (first, second)
        #expect(value.value == 42)
        #expect(response.value.value == 42)
        #expect(response.attempts == 2)
        #expect(counter.count() == 2, "two failing serializers of one attempt cause one retry, not two")
        #expect(calls.all.map(\.1) == [.serializationFailed])
        #expect(calls.all.map(\.2) == [1])
        // A later serialization shares the retried result without another transfer.
        #expect(try await request.data() == Data("{\"value\":42}".utf8))
        #expect(counter.count() == 2)
    }

    @Test func serializerFailureWithoutRetryKeepsTheSerializerError() async throws {
        struct Payload: Decodable, Sendable { let value: Int }
        let server = try await Fixtures.server()
        let calls = Recorder<(String, CurlewError.Kind, Int)>()
        let session = Session(interceptors: [ScriptedRetrier(name: "r", calls: calls) { _, _ in .doNotRetry }])
        defer { Task { await session.shutdown() } }
        do {
            _ = try await session.request(server.url("/xml")).decode(Payload.self)
            Issue.record("expected a decoding failure")
        } catch {
            #expect(error.kind == .serializationFailed)
        }
        #expect(calls.count == 1)
    }

    @Test func oneShotStreamBodyIsNotRetriedAndTheErrorSaysWhy() async throws {
        let counter = CallCounter()
        let server = try await ScriptedHTTPServer.start { request in
            counter.next(request.path) == 1 ? .text("later", status: 503) : .text("got \(request.body.count) bytes")
        }
        defer { Task { await server.shutdown() } }
        let session = Session(interceptors: [ScriptedRetrier(name: "r", calls: Recorder()) { _, _ in .retry }])
        defer { Task { await session.shutdown() } }
        do {
            _ = try await session.request(
                server.url("/one-shot"), method: .put, body: .stream(ChunkSequence(chunks: [Array("abc".utf8)]))
            ).validate().data()
            Issue.record("a one-shot body must not be retried")
        } catch {
            #expect(error.kind == .bodyNotReplayable)
            #expect(error.message.contains("one-shot"))
            #expect(error.status?.code == 503)
            #expect((error.underlying as? CurlewError)?.kind == .unacceptableStatus)
        }
        #expect(counter.count("/one-shot") == 1)

        let replayable = RequestBody.stream(length: 3) { ChunkSequence(chunks: [Array("abc".utf8)]) }
        let response = try await session.request(server.url("/replayable"), method: .put, body: replayable)
            .validate().serialized(by: .string)
        #expect(response.value == "got 3 bytes")
        #expect(response.attempts == 2)
    }

    @Test func responseInterceptorsSeeAndChangeRawResponsesAndCanFailAttempts() async throws {
        let counter = CallCounter()
        let server = try await ScriptedHTTPServer.start { _ in
            .json(["call": counter.next()])
        }
        defer { Task { await server.shutdown() } }
        let seen = Recorder<Int>()
        let rejectFirst = Interceptor.response { response, _ in
            seen.append(response.attempts)
            if response.attempts == 1 { throw AdapterFailure(name: "response check") }
            return response.map { body in body + Data(" [checked]".utf8) }
        }
        let session = Session(interceptors: [
            rejectFirst, ScriptedRetrier(name: "r", calls: Recorder()) { error, _ in error.kind == .validationFailed ? .retry : .doNotRetry },
        ])
        defer { Task { await session.shutdown() } }
        let text = try await session.request(server.url("/r")).string()
        #expect(text == "{\"call\":2} [checked]")
        #expect(seen.all == [1, 2])
    }

    /// Reports each retry delay as it begins (`willRetry` is called just before the wait), and
    /// the end of each request, so that waiting for a delay cannot hang when none comes.
    struct RetryDelaySignal: EventMonitor {
        let events: AsyncStream<String>
        private let continuation: AsyncStream<String>.Continuation

        init() { (events, continuation) = AsyncStream.makeStream() }

        func request(_ id: RequestID, willRetry request: OutgoingRequest, after error: CurlewError, attempt: Int, delay: Duration) {
            continuation.yield("delay \(delay)")
        }

        func request(
            _ id: RequestID, didFinish request: OutgoingRequest?, with result: Result<TransferCompletion, CurlewError>,
            attempts: Int
        ) {
            continuation.yield("finished")
        }
    }

    @Test func cancellingDuringARetryDelayEndsAtOnce() async throws {
        let server = try await Fixtures.server()
        let signal = RetryDelaySignal()
        var configuration = SessionConfiguration()
        configuration.eventMonitors = [signal]
        let session = Session(
            configuration: configuration,
            interceptors: [ScriptedRetrier(name: "slow", calls: Recorder()) { _, _ in .retryWithDelay(.seconds(3600)) }])
        defer { Task { await session.shutdown() } }
        var events = signal.events.makeAsyncIterator()

        // cancel() during the wait.
        let request = session.request(server.url("/status/503")).validate()
        let waiting = Task { try await request.data() }
        let first = await events.next()
        #expect(first == "delay 3600.0 seconds", "the retry delay began")
        request.cancel()
        // An hour's delay: a cancel that did not end the wait is a hang, which the guard reports.
        let outcome = await HangGuard.result(of: waiting)
        #expect(outcome != nil, "hung: cancel() did not end the retry delay")
        #expect((outcome?.failure as? CurlewError)?.kind == .cancelled, "\(String(describing: outcome))")
        let ended = await events.next()
        #expect(ended == "finished")

        // Task cancellation during the wait.
        let task = Task { try await session.request(server.url("/status/503")).validate().data() }
        let second = await events.next()
        #expect(second == "delay 3600.0 seconds", "the second request's retry delay began")
        task.cancel()
        let taskOutcome = await HangGuard.result(of: task)
        #expect(taskOutcome != nil, "hung: cancelling the task did not end the retry delay")
        #expect((taskOutcome?.failure as? CurlewError)?.kind == .taskCancelled, "\(String(describing: taskOutcome))")
    }
}
