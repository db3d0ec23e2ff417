import Curlew
import Foundation
import Testing
import TestServer

@Suite("Tasks on the session's own thread (Session.taskExecutor)")
struct SessionExecutorTests {
    @Test func sequentialRequestsRunOnTheSessionThread() async throws {
        let server = try await Fixtures.server()
        let session = Session()
        let threadNames = try await withTaskExecutorPreference(session.taskExecutor) {
            var names: [String?] = []
            for index in 0..<20 {
                let body = try await session.request(server.url("/bytes/64?seed=\(index)")).validate().data()
                #expect(body.count == 64)
                names.append(currentThreadName())
            }
            return names
        }
        #expect(threadNames.count == 20)
        #expect(threadNames.allSatisfy { $0 == "Curlew.Session" }, "\(threadNames)")
        await session.shutdown()
    }

    @Test func concurrentTasksShareTheSessionThread() async throws {
        let server = try await Fixtures.server()
        let session = Session()
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<32 {
                group.addTask(executorPreference: session.taskExecutor) {
                    try await session.request(server.url("/bytes/1000?seed=\(index)")).validate().data().count
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(total == 32_000)
        await session.shutdown()
    }

    @Test func cancellationStillReachesTheTransfer() async throws {
        let server = try await Fixtures.server()
        let session = Session()
        let task = Task(executorPreference: session.taskExecutor) {
            try await session.request(server.url("/delay/5000")).data()
        }
        try await Task.sleep(for: .milliseconds(150))
        task.cancel()
        let start = ContinuousClock.now
        await #expect(throws: CurlewError.self) { _ = try await task.value }
        #expect(ContinuousClock.now - start < .seconds(4))
        await session.shutdown()
    }

    @Test func afterShutdownTasksMoveToTheGlobalExecutor() async throws {
        let server = try await Fixtures.server()
        let session = Session()
        let outcome = try await withTaskExecutorPreference(session.taskExecutor) { () async throws -> (CurlewError.Kind?, String?) in
            _ = try await session.request(server.url("/get")).validate().data()
            await session.shutdown()
            // The session's thread is gone: this task must still be able to run, and fail cleanly.
            do {
                _ = try await session.request(server.url("/get")).data()
                return (nil, currentThreadName())
            } catch let error as CurlewError {
                return (error.kind, currentThreadName())
            } catch {
                return (nil, currentThreadName())
            }
        }
        #expect(outcome.0 == .sessionShutdown)
        #expect(outcome.1 != "Curlew.Session")
    }
}

/// The name of the thread running the caller (synchronous, so async code may call it).
private func currentThreadName() -> String? { Thread.current.name }
