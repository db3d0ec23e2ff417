import Curlew
import Foundation
import Synchronization
import Testing
import TestServer

@Suite("Cancelling and shutting down")
struct CancellationTests {
    /// The test server answers after 5 s; the request's own path tells when it has arrived.
    /// A response the server holds back for 30 s: a request that ends much earlier was cancelled.
    private let slow = ["X-Test-Delay-Ms": "30000"]

    @Test func cancellingTheTaskCancelsTheTransfer() async throws {
        let server = try await Fixtures.server()
        let path = "/anything/cancel-task-\(UUID().uuidString)"
        let task = Task { try await Fixtures.session.request(server.url(path), headers: RequestHeaders(slow)).data() }
        try await waitUntil { server.requestCount(path: path) == 1 }  // in flight: the server has it
        task.cancel()
        do {
            _ = try await task.value
            Issue.record("expected an error")
        } catch let error as CurlewError {
            #expect(error.kind == .taskCancelled)
        }
        // The server would answer after 30 s with a body: the kind says the cancel ended it.
    }

    @Test func requestCancelGivesItsOwnError() async throws {
        let server = try await Fixtures.server()
        let path = "/anything/cancel-request-\(UUID().uuidString)"
        let request = Fixtures.session.request(server.url(path), headers: RequestHeaders(slow))
        async let result = request.data()
        try await waitUntil { server.requestCount(path: path) == 1 }
        request.cancel()
        do {
            _ = try await result
            Issue.record("expected an error")
        } catch let error as CurlewError {
            #expect(error.kind == .cancelled)
        }
    }

    @Test func cancelBeforeStartIsNotLost() async throws {
        let server = try await Fixtures.server()
        let path = "/anything/early-cancel-\(UUID().uuidString)"
        let request = Fixtures.session.request(server.url(path))
        request.cancel()
        do {
            _ = try await request.data()
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .cancelled)
        }
        #expect(server.requestCount(path: path) == 0)
    }

    /// A head that had arrived stays on the cancellation error, as Alamofire keeps `response`.
    @Test func cancelAfterTheHeadKeepsTheHead() async throws {
        let server = try await Fixtures.server()
        let request = Fixtures.session.request(server.url("/fault/stall-after-head?length=1000&send=10&status=203"))
        var sawHead = false
        do {
            for try await event in request.events {
                if case .response(let head) = event {
                    #expect(head.status.code == 203)
                    sawHead = true
                    request.cancel()
                }
            }
            Issue.record("expected the events to end with an error")
        } catch let error as CurlewError {
            #expect(error.kind == .cancelled)
        }
        #expect(sawHead)
        do {
            _ = try await request.data()
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .cancelled)
            #expect(error.responseHead?.status.code == 203)
        }
    }

    @Test func droppingTheEventsIteratorCancels() async throws {
        let server = try await Fixtures.server()
        let request = Fixtures.session.request(server.url("/drip?bytes=1000&duration=4000&chunks=10"))
        for try await event in request.events {
            if case .response = event { break }
        }
        do {
            _ = try await request.data()
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .streamDropped)
        }
    }

    @Test func shutdownFailsInFlightRequestsAndLaterOnes() async throws {
        let server = try await Fixtures.server()
        let session = Session()
        let path = "/anything/shutdown-\(UUID().uuidString)"
        let inFlight = Task { try await session.request(server.url(path), headers: RequestHeaders(slow)).data() }
        try await waitUntil { server.requestCount(path: path) == 1 }
        await session.shutdown()
        do {
            _ = try await inFlight.value
            Issue.record("expected an error")
        } catch let error as CurlewError {
            #expect(error.kind == .sessionShutdown)
        }
        do {
            _ = try await session.request(server.url("/get")).data()
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .sessionShutdown)
        }
    }

    @Test func withSessionScopesTheLifetime() async throws {
        let server = try await Fixtures.server()
        let (status, session) = try await withSession { session in
            (try await session.request(server.url("/status/204")).response.status.code, session)
        }
        #expect(status == 204)
        // After the closure the session is shut down: a new request on it fails at once.
        let after = await #expect(throws: CurlewError.self) {
            _ = try await session.request(server.url("/get")).data()
        }
        #expect(after?.kind == .sessionShutdown)

        // Also when the closure throws.
        let escaped = Mutex<Session?>(nil)
        await #expect(throws: CancellationError.self) {
            try await withSession { session in
                escaped.withLock { $0 = session }
                throw CancellationError()
            }
        }
        let thrown = try #require(escaped.withLock { $0 })
        let afterThrow = await #expect(throws: CurlewError.self) {
            _ = try await thrown.request(server.url("/get")).data()
        }
        #expect(afterThrow?.kind == .sessionShutdown)
    }
}
