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
        // Each task notes the thread it runs on before and after its request.
        let seen = try await withThrowingTaskGroup(of: (Int, [ThreadID]).self) { group in
            for index in 0..<32 {
                group.addTask(executorPreference: session.taskExecutor) {
                    let before = ThreadID.current
                    let count = try await session.request(server.url("/bytes/1000?seed=\(index)")).validate().data().count
                    return (count, [before, ThreadID.current])
                }
            }
            var total = 0
            var threads: [ThreadID] = []
            for try await (count, ids) in group {
                total += count
                threads += ids
            }
            return (total, threads)
        }
        #expect(seen.0 == 32_000)
        #expect(seen.1.count == 64)
        // One thread for all 32 tasks, before and after their requests: the session's own.
        #expect(Set(seen.1.map(\.handle)).count == 1, "tasks ran on \(Set(seen.1.map(\.handle)).count) threads")
        #expect(seen.1.allSatisfy { $0.name == "Curlew.Session" }, "\(Set(seen.1.map(\.name)))")
        await session.shutdown()
    }

    @Test func cancellationStillReachesTheTransfer() async throws {
        let server = try await Fixtures.server()
        let session = Session()
        let path = "/anything/executor-cancel-\(UUID().uuidString)"
        let task = Task(executorPreference: session.taskExecutor) {
            try await session.request(server.url(path), headers: ["X-Test-Delay-Ms": "30000"]).data()
        }
        try await waitUntil { server.requestCount(path: path) == 1 }  // in flight: the server has it
        task.cancel()
        let error = await #expect(throws: CurlewError.self) { _ = try await task.value }
        #expect(error?.kind == .taskCancelled)
        // The server would answer after 30 s with a body: the kind says the cancel ended the
        // transfer first, whatever the machine's load.
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

/// The thread running the caller: its pthread handle and name.
private struct ThreadID: Sendable {
    let handle: UInt
    let name: String?

    static var current: ThreadID { ThreadID(handle: UInt(pthread_self()), name: Thread.current.name) }
}
