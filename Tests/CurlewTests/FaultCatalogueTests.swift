import Curlew
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TestServer

/// The entries of docs/FAULTS.md that no other suite covers: servers that close or reset,
/// hostile redirects, bodies that throw, cancellation storms, shutdown races and many sessions.
@Suite("Fault catalogue")
struct FaultCatalogueTests {
    let session = Fixtures.session

    @Test func closeWithoutAResponseIsAnError() async throws {
        // libcurl sees an empty reply (52, malformedResponse); when the close resets a
        // connection with unread bytes, a receive error (56); and when it retries on a pooled
        // connection the server already closed, a send error (55): never a response.
        let server = try await Fixtures.server()
        let error = await failure(session.request(server.url("/fault/close-without-response")))
        #expect([.malformedResponse, .transport].contains(error?.kind), "\(String(describing: error))")
        #expect([52, 55, 56].contains(error?.curlCode), "\(String(describing: error))")
    }

    @Test func resetWithoutAResponseIsATransportFailure() async throws {
        let server = try await Fixtures.server()
        let error = await failure(session.request(server.url("/fault/reset-without-response")))
        #expect([.transport, .malformedResponse].contains(error?.kind), "\(String(describing: error))")
        #expect(error?.curlCode != nil)
    }

    @Test func resetMidBodyIsAnError() async throws {
        let server = try await Fixtures.server()
        let error = await failure(session.request(server.url("/fault/reset-after-head?length=100000&send=100")))
        #expect([.transport, .connectionClosedMidBody].contains(error?.kind), "\(String(describing: error))")
    }

    @Test(arguments: ["file:///etc/passwd", "gopher://127.0.0.1/", "ftp://127.0.0.1/x"])
    func hostileRedirectTargetsAreRefused(_ target: String) async throws {
        let server = try await Fixtures.server()
        let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target
        let error = await failure(session.request(server.url("/redirect-to?url=\(encoded)")))
        #expect(error?.kind == .unsupportedScheme, "\(String(describing: error))")
    }

    @Test func aRedirectToAnUnparsableLocationIsAnError() async throws {
        let server = try await Fixtures.server()
        let error = await failure(session.request(server.url("/redirect-to?url=http%3A%2F%2F%5B%3A%3A1")))
        #expect(error != nil)
        #expect(error?.kind != .transport, "\(String(describing: error))")
    }

    @Test func aBodySequenceThatThrowsFailsTheUpload() async throws {
        struct Broken: Error {}
        let server = try await Fixtures.server()
        let body = AsyncThrowingStream<[UInt8], any Error> { continuation in
            continuation.yield(Array("first".utf8))
            continuation.finish(throwing: Broken())
        }
        let error = await failure(session.request(server.url("/post"), method: .post, body: .stream(body)))
        #expect(error?.kind == .uploadFailed, "\(String(describing: error))")
    }

    @Test func anInvalidMethodFromFoundationIsRejected() async throws {
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1/")))
        request.httpMethod = "GE T"
        #expect(throws: CurlewError.self) { try OutgoingRequest(request) }
    }

    @Test func aCancellationStormLeavesTheSessionWorking() async throws {
        let server = try await Fixtures.server()
        let storm = Session()
        let outcomes = await withTaskGroup(of: CurlewError.Kind?.self) { group in
            for index in 0..<500 {
                let request = storm.request(server.url("/delay/\(index % 50)"))
                group.addTask {
                    do {
                        _ = try await request.data()
                        return nil
                    } catch {
                        return (error as? CurlewError)?.kind ?? .transport
                    }
                }
                if index % 2 == 0 { request.cancel() }
            }
            return await group.reduce(into: [CurlewError.Kind?]()) { $0.append($1) }
        }
        #expect(outcomes.count == 500)
        // Every cancelled request says so; nothing else failed.
        #expect(outcomes.compactMap { $0 }.allSatisfy { $0 == .cancelled })
        #expect(outcomes.filter { $0 == .cancelled }.count >= 250)
        let after = try await storm.request(server.url("/get")).validate().data()
        #expect(!after.isEmpty)
        await storm.shutdown()
    }

    @Test func shutdownRacingHundredsOfRequestsEndsEachOnce() async throws {
        let server = try await Fixtures.server()
        let racing = Session()
        let outcomes = await withTaskGroup(of: CurlewError.Kind?.self) { group in
            for index in 0..<300 {
                group.addTask {
                    do {
                        _ = try await racing.request(server.url("/delay/\(index % 20)")).data()
                        return nil
                    } catch {
                        return (error as? CurlewError)?.kind ?? .transport
                    }
                }
            }
            group.addTask {
                await racing.shutdown()
                return .sessionShutdown
            }
            return await group.reduce(into: [CurlewError.Kind?]()) { $0.append($1) }
        }
        #expect(outcomes.count == 301)
        #expect(outcomes.compactMap { $0 }.allSatisfy { $0 == .sessionShutdown })
        let after = await failure(racing.request(server.url("/get")))
        #expect(after?.kind == .sessionShutdown)
    }

    @Test func aThousandSessionsComeAndGoWithoutLeakingThreads() async throws {
        let server = try await Fixtures.server()
        let before = try threadCount()
        for _ in 0..<20 {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        let session = Session()
                        _ = try await session.request(server.url("/get")).validate().data()
                        await session.shutdown()
                    }
                }
                try await group.waitForAll()
            }
        }
        // Each session's thread is joined at shutdown; other tests may run threads of their own
        // meanwhile, so allow a few beside the thousand that must be gone.
        #expect(try threadCount() - before < 20)
    }

    private func threadCount() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count
    }
}
