import Foundation
import HTTPTypes
import Testing
import TestServer

@testable import Curlew

/// `OfflineRetrier`'s decisions, with a monitor whose paths the test publishes.
@Suite("OfflineRetrier", .timeLimit(.minutes(1)))
struct OfflineRetrierTests {
    let url = URL(string: "http://192.0.2.1/resource")!

    func request(_ method: HTTPRequest.Method = .get) -> OutgoingRequest { OutgoingRequest(url: url, method: method) }

    func refused() -> CurlewError { CurlewError(.connectionRefused, "could not connect", url: url, curlCode: 7) }

    func context(attempt: Int = 1, started: ContinuousClock.Instant = .now) -> RetryContext {
        RetryContext(attempt: attempt, firstAttemptStart: started, attemptStart: started)
    }

    func isRetry(_ result: RetryResult) -> Bool {
        if case .retry = result { return true }
        return false
    }

    func isNoDecision(_ result: RetryResult) -> Bool {
        if case .doNotRetry = result { return true }
        return false
    }

    @Test func theDefaultPredicate() {
        let check = OfflineRetrier.isConnectionFailure
        for kind: CurlewError.Kind in [.connectionRefused, .hostNotFound, .connectTimeout] {
            #expect(check(request(.post), CurlewError(kind, "x")), "\(kind), even for POST")
        }
        for kind: CurlewError.Kind in [.connectionClosedMidBody, .idleTimeout, .tooSlow] {
            #expect(check(request(.get), CurlewError(kind, "x")), "\(kind) for GET")
            #expect(!check(request(.post), CurlewError(kind, "x")), "\(kind) for POST: the server may have acted")
        }
        #expect(check(request(.get), CurlewError(.transport, "reset", curlCode: 56)))
        #expect(!check(request(.post), CurlewError(.transport, "reset", curlCode: 56)))
        #expect(!check(request(.get), CurlewError(.malformedResponse, "bad chunk", curlCode: 56)))
        #expect(check(request(.get), CurlewError(.proxyFailure, "proxy unreachable", curlCode: 7)))
        #expect(!check(request(.get), CurlewError(.proxyFailure, "407", curlCode: 56)))
        for kind: CurlewError.Kind in [.unacceptableStatus, .tlsFailure, .notConnected, .cancelled, .totalTimeout] {
            #expect(!check(request(.get), CurlewError(kind, "x")), "\(kind)")
        }
    }

    @Test func anOfflineFailureWaitsForThePathThenRetries() async {
        let monitor = ReachabilityMonitor(testingPath: TestPaths.offline)
        let retrier = OfflineRetrier(monitor: monitor, maximumWait: .seconds(60))
        let decision = Task { await retrier.retry(request(), for: Fixtures.session, dueTo: refused(), context: context()) }
        #expect(await waiters(on: monitor, atLeast: 1))
        monitor.publish(TestPaths.online)
        #expect(isRetry(await decision.value))
    }

    @Test func whenTheNetworkDoesNotReturnTheRetrierStandsAsideTiming() async {
        let monitor = ReachabilityMonitor(testingPath: TestPaths.offline)
        let retrier = OfflineRetrier(monitor: monitor, maximumWait: .milliseconds(200))
        let started = ContinuousClock.now
        #expect(isNoDecision(await retrier.retry(request(), for: Fixtures.session, dueTo: refused(), context: context())))
        #expect(ContinuousClock.now - started >= .milliseconds(200))
    }

    @Test func aFailureWhileOnlineAllAlongIsLeftToOthers() async {
        let monitor = ReachabilityMonitor(testingPath: TestPaths.online)
        let retrier = OfflineRetrier(monitor: monitor)
        #expect(isNoDecision(await retrier.retry(request(), for: Fixtures.session, dueTo: refused(), context: context())))
        #expect(monitor.broadcast.isFinished == false)
    }

    @Test func aPathThatDroppedDuringTheAttemptAndIsBackRetriesAtOnce() async {
        let monitor = ReachabilityMonitor(testingPath: TestPaths.online)
        let attemptStart = ContinuousClock.now
        monitor.publish(TestPaths.offline)
        monitor.publish(TestPaths.online)
        let retrier = OfflineRetrier(monitor: monitor)
        #expect(isRetry(await retrier.retry(
            request(), for: Fixtures.session, dueTo: refused(), context: context(started: attemptStart))))
        // An attempt that started after that drop has no reason to retry.
        #expect(isNoDecision(await retrier.retry(request(), for: Fixtures.session, dueTo: refused(), context: RetryContext(attempt: 1, firstAttemptStart: .now, attemptStart: .now))))
    }

    @Test func otherFailuresAndTheRetryLimit() async {
        let monitor = ReachabilityMonitor(testingPath: TestPaths.offline)
        let retrier = OfflineRetrier(monitor: monitor, maximumWait: .seconds(60), retryLimit: 2)
        let status = CurlewError(.unacceptableStatus, "503", url: url)
        #expect(isNoDecision(await retrier.retry(request(), for: Fixtures.session, dueTo: status, context: context())))
        #expect(isNoDecision(await retrier.retry(request(), for: Fixtures.session, dueTo: refused(), context: context(attempt: 3))))
        var custom = retrier
        custom.isOfflineFailure = { _, error in error.kind == .unacceptableStatus }
        monitor.publish(TestPaths.online)
        let attemptStart = ContinuousClock.now
        monitor.publish(TestPaths.offline)
        monitor.publish(TestPaths.online)
        #expect(isRetry(await custom.retry(request(), for: Fixtures.session, dueTo: status, context: context(started: attemptStart))))
    }

    @Test func inASessionTheRetrierRetriesOnceThePathReturns() async throws {
        let port = try RefusingPort.make()
        let monitor = ReachabilityMonitor(testingPath: TestPaths.offline)
        let recorder = ConnectivityRecorder()
        var configuration = SessionConfiguration()
        configuration.eventMonitors = [recorder]
        let session = Session(
            configuration: configuration, interceptors: [OfflineRetrier(monitor: monitor, maximumWait: .seconds(60))])
        let outcome = Task { await failure(session.request("http://127.0.0.1:\(port)/")) }
        #expect(await waiters(on: monitor, atLeast: 1))
        monitor.publish(TestPaths.online)
        // The port still refuses: the second failure happened online, so the retrier stands aside.
        #expect(await outcome.value?.kind == .connectionRefused)
        #expect(recorder.finishedAttempts == [2])
        await session.shutdown()
    }

    @Test func cancellingARequestEndsTheRetriersWait() async throws {
        let port = try RefusingPort.make()
        let monitor = ReachabilityMonitor(testingPath: TestPaths.offline)
        let session = Session(interceptors: [OfflineRetrier(monitor: monitor, maximumWait: .seconds(600))])
        let request = session.request("http://127.0.0.1:\(port)/")
        let outcome = Task { await failure(request) }
        #expect(await waiters(on: monitor, atLeast: 1))
        request.cancel()
        #expect(await outcome.value?.kind == .cancelled)
        await session.shutdown()
    }

    @Test func theSessionsMonitorIsUsedWhenTheRetrierHasNone() async throws {
        let port = try RefusingPort.make()
        let monitor = ReachabilityMonitor(testingPath: TestPaths.offline)
        var configuration = SessionConfiguration()
        configuration.reachabilityMonitor = monitor
        let session = Session(configuration: configuration, interceptors: [OfflineRetrier(maximumWait: .seconds(600))])
        let outcome = Task { await failure(session.request("http://127.0.0.1:\(port)/")) }
        #expect(await waiters(on: monitor, atLeast: 1), "the retrier did not wait on the session's monitor")
        outcome.cancel()
        #expect(await outcome.value?.kind == .taskCancelled)
        await session.shutdown()
    }
}
