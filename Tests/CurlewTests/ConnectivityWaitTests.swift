import Foundation
import Testing
import TestServer

@testable import Curlew

/// Waiting for connectivity before an attempt, against the local test server, with a monitor
/// whose paths the test publishes (no netlink, no privileges).
@Suite("Waiting for connectivity", .timeLimit(.minutes(1)))
struct ConnectivityWaitTests {
    func session(monitor: ReachabilityMonitor, recorder: ConnectivityRecorder, wait: Duration? = nil) -> Session {
        var configuration = SessionConfiguration()
        configuration.reachabilityMonitor = monitor
        configuration.eventMonitors = [recorder]
        configuration.waitsForConnectivity = wait
        return Session(configuration: configuration)
    }

    func waiting(_ limit: Duration) -> RequestOptions {
        var options = RequestOptions()
        options.waitsForConnectivity = limit
        return options
    }

    @Test func aWaitingRequestStartsOnceThePathIsSatisfied() async throws {
        let server = try await Fixtures.server()
        let monitor = ReachabilityMonitor(testingPath: TestPaths.offline)
        let recorder = ConnectivityRecorder()
        let session = session(monitor: monitor, recorder: recorder)
        let path = "/anything/wait-\(UUID().uuidString)"
        let response = Task { try await session.request(server.url(path), options: waiting(.seconds(60))).data() }
        let waitedOn = try #require(await first(of: recorder.waits), "the request never waited")
        #expect(waitedOn == TestPaths.offline)
        #expect(server.requestCount(path: path) == 0, "nothing is sent while the path is unsatisfied")
        monitor.publish(TestPaths.online)
        _ = try await response.value
        #expect(server.requestCount(path: path) == 1)
        #expect(recorder.finishedAttempts == [1])
        await session.shutdown()
    }

    @Test func theSessionsSettingAppliesAndARequestsZeroOverridesIt() async throws {
        let server = try await Fixtures.server()
        let monitor = ReachabilityMonitor(testingPath: TestPaths.offline)
        let recorder = ConnectivityRecorder()
        let session = session(monitor: monitor, recorder: recorder, wait: .seconds(60))
        // Zero: starts at once, offline or not, and reaches the (loopback) server.
        _ = try await session.request(server.url("/get"), options: waiting(.zero)).data()
        let path = "/anything/session-wait-\(UUID().uuidString)"
        let response = Task { try await session.request(server.url(path)).data() }
        _ = try #require(await first(of: recorder.waits), "the session's setting did not make the request wait")
        #expect(server.requestCount(path: path) == 0)
        monitor.publish(TestPaths.online)
        _ = try await response.value
        #expect(server.requestCount(path: path) == 1)
        await session.shutdown()
    }

    @Test func withoutTheOptionNothingWaits() async throws {
        let server = try await Fixtures.server()
        let monitor = ReachabilityMonitor(testingPath: TestPaths.offline)
        let recorder = ConnectivityRecorder()
        let session = session(monitor: monitor, recorder: recorder)
        _ = try await session.request(server.url("/get")).data()
        #expect(recorder.finishedAttempts == [1])
        #expect(recorder.waitCount == 0)
        await session.shutdown()
    }

    @Test func aSatisfiedPathDoesNotWait() async throws {
        let server = try await Fixtures.server()
        let monitor = ReachabilityMonitor(testingPath: TestPaths.online)
        let recorder = ConnectivityRecorder()
        let session = session(monitor: monitor, recorder: recorder)
        _ = try await session.request(server.url("/get"), options: waiting(.seconds(60))).data()
        #expect(recorder.waitCount == 0)
        await session.shutdown()
    }

    @Test func failsWithNotConnectedOnceTheLimitPassesTiming() async throws {
        let server = try await Fixtures.server()
        let monitor = ReachabilityMonitor(testingPath: TestPaths.offline)
        let recorder = ConnectivityRecorder()
        let session = session(monitor: monitor, recorder: recorder)
        let path = "/anything/limit-\(UUID().uuidString)"
        let started = ContinuousClock.now
        let error = await failure(session.request(server.url(path), options: waiting(.milliseconds(300))))
        let elapsed = ContinuousClock.now - started
        #expect(error?.kind == .notConnected)
        #expect(error?.message.contains("unsatisfied") == true, "\(String(describing: error))")
        #expect(error?.url?.path == path)
        #expect(elapsed >= .milliseconds(300))
        #expect(elapsed < .seconds(10))
        #expect(server.requestCount(path: path) == 0)
        await session.shutdown()
    }

    @Test func cancellingAWaitingRequestEndsTheWaitAtOnce() async throws {
        let server = try await Fixtures.server()
        let monitor = ReachabilityMonitor(testingPath: TestPaths.offline)
        let recorder = ConnectivityRecorder()
        let session = session(monitor: monitor, recorder: recorder)
        let request = session.request(server.url("/get"), options: waiting(.seconds(600)))
        let outcome = Task { await failure(request) }
        _ = try #require(await first(of: recorder.waits))
        request.cancel()
        let error = await outcome.value
        #expect(error?.kind == .cancelled)
        #expect(monitor.broadcast.isFinished == false)
        await session.shutdown()
    }

    @Test func cancellingTheTaskEndsTheWait() async throws {
        let server = try await Fixtures.server()
        let monitor = ReachabilityMonitor(testingPath: TestPaths.offline)
        let recorder = ConnectivityRecorder()
        let session = session(monitor: monitor, recorder: recorder)
        let outcome = Task { await failure(session.request(server.url("/get"), options: waiting(.seconds(600)))) }
        _ = try #require(await first(of: recorder.waits))
        outcome.cancel()
        #expect(await outcome.value?.kind == .taskCancelled)
        await session.shutdown()
    }

    @Test func aStreamedBodyWaitsToo() async throws {
        let server = try await Fixtures.server()
        let monitor = ReachabilityMonitor(testingPath: TestPaths.offline)
        let recorder = ConnectivityRecorder()
        let session = session(monitor: monitor, recorder: recorder)
        let path = "/anything/stream-\(UUID().uuidString)"
        let bytes = Task {
            var count = 0
            for try await chunk in session.request(server.url(path), options: waiting(.seconds(60))).bytes { count += chunk.count }
            return count
        }
        _ = try #require(await first(of: recorder.waits))
        #expect(server.requestCount(path: path) == 0)
        monitor.publish(TestPaths.online)
        #expect(try await bytes.value > 0)
        await session.shutdown()
    }

    @Test func theMonitorReportsPathsInOrderAndKnowsWhenItWasOffline() async throws {
        let monitor = ReachabilityMonitor(testingPath: TestPaths.online)
        let before = ContinuousClock.now
        #expect(!monitor.broadcast.wasUnsatisfied(since: before))
        var paths = monitor.paths().makeAsyncIterator()
        #expect(await paths.next() == TestPaths.online, "the current path comes first")
        monitor.publish(TestPaths.offline)
        #expect(await paths.next() == TestPaths.offline)
        #expect(monitor.broadcast.wasUnsatisfied(since: before))
        monitor.publish(TestPaths.online)
        #expect(await paths.next() == TestPaths.online)
        #expect(monitor.broadcast.wasUnsatisfied(since: before), "offline for a while after `before`")
        #expect(!monitor.broadcast.wasUnsatisfied(since: .now))
        #expect(await monitor.satisfiedPath(within: .zero) == TestPaths.online)
    }

    @Test func satisfiedPathGivesUpAtItsLimitTiming() async {
        let monitor = ReachabilityMonitor(testingPath: TestPaths.offline)
        let started = ContinuousClock.now
        #expect(await monitor.satisfiedPath(within: .milliseconds(200)) == nil)
        #expect(ContinuousClock.now - started >= .milliseconds(200))
    }

    @Test func theSharedMonitorRunsAndIsShared() async throws {
        let shared = try await ReachabilityMonitor.shared()
        #expect(try await ReachabilityMonitor.shared() === shared)
        #expect(shared.currentPath.interface(named: "lo") != nil, "\(shared.currentPath)")
    }
}
