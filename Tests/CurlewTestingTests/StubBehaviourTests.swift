import Curlew
import CurlewTesting
import Foundation
import Testing
import TestServer

/// What happens above the stubbed transfer happens in Curlew: failures map as libcurl's do,
/// streams keep their backpressure, and redirects, cookies and retries run as over the network.
@Suite("Stub behaviour")
struct StubBehaviourTests {
    @Test(arguments: [
        (StubFailure.connectionRefused, CurlewError.Kind.connectionRefused, 7),
        (.hostNotFound, .hostNotFound, 6),
        (.connectTimeout, .connectTimeout, 28),
        (.totalTimeout, .totalTimeout, 28),
        (.tlsFailure, .tlsFailure, 35),
        (.connectionReset, .transport, 56),
        (.emptyReply, .malformedResponse, 52),
    ])
    func eachFailureIsTheTransportsErrorKind(_ played: StubFailure, _ kind: CurlewError.Kind, _ code: Int) async throws {
        let stubs = HTTPStubs()
        stubs.register(.get, "https://api.example.com/x", .failure(played))
        var configuration = SessionConfiguration.stubbed(by: stubs)
        configuration.timeouts = Timeouts(connect: .seconds(30))
        let session = Session(configuration: configuration)
        let error = await failure(session.request("https://api.example.com/x"))
        #expect(error?.kind == kind, "\(String(describing: error))")
        #expect(error?.curlCode == code, "\(String(describing: error))")
        await session.shutdown()
    }

    @Test func idleTimeoutIsReportedAsTheLoopReportsIt() async throws {
        let stubs = HTTPStubs()
        stubs.register(.get, "https://api.example.com/x", .status(200, body: Data(count: 10)).failing(with: .idleTimeout, afterBodyBytes: 4))
        var configuration = SessionConfiguration.stubbed(by: stubs)
        configuration.timeouts = Timeouts(idle: .seconds(5))
        let session = Session(configuration: configuration)
        let error = await failure(session.request("https://api.example.com/x"))
        #expect(error?.kind == .idleTimeout, "\(String(describing: error))")
        await session.shutdown()
    }

    @Test func failuresMatchTheRealServersFaults() async throws {
        let server = try await TestServer.start()
        let real = Session(configuration: { var c = SessionConfiguration(); c.proxy = .direct; return c }())
        let stubs = HTTPStubs()
        let stubbed = Session(configuration: .stubbed(by: stubs))
        let refusing = try RefusingPort.make()
        stubs.register(.get, "http://127.0.0.1:\(refusing)/", .failure(.connectionRefused))
        stubs.register(.urlPrefix(server.url("/fault/reset-after-head").absoluteString),
                       responses: [.status(200, body: Data(count: 100_000)).failing(with: .connectionReset, afterBodyBytes: 100)])
        stubs.register(.urlPrefix(server.url("/fault/close-mid-body").absoluteString),
                       responses: [.status(200, body: Data(count: 1000)).failing(with: .closedMidBody, afterBodyBytes: 500)])
        for url in [
            "http://127.0.0.1:\(refusing)/",
            server.url("/fault/reset-after-head?length=100000&send=100").absoluteString,
            server.url("/fault/close-mid-body?length=1000&send=500").absoluteString,
        ] {
            let expected = await failure(real.request(url))
            let played = await failure(stubbed.request(url))
            #expect(expected?.kind != nil)
            #expect(played?.kind == expected?.kind, "\(url): \(String(describing: played)) vs \(String(describing: expected))")
        }
        await real.shutdown()
        await stubbed.shutdown()
    }

    @Test func aCutBodyKeepsItsHeadInTheError() async throws {
        let stubs = HTTPStubs()
        stubs.register(.get, "https://api.example.com/x", .status(200, body: Data(count: 1000)).failing(with: .closedMidBody, afterBodyBytes: 10))
        let session = Session(configuration: .stubbed(by: stubs))
        let error = await failure(session.request("https://api.example.com/x"))
        #expect(error?.kind == .connectionClosedMidBody)
        #expect(error?.status?.code == 200)
        await session.shutdown()
    }

    @Test func streamedChunksDeliverProgressEvents() async throws {
        let stubs = HTTPStubs()
        let chunks = (0..<5).map { StubChunk(Data(repeating: UInt8($0), count: 1000), after: .milliseconds(20)) }
        stubs.register(.get, "https://api.example.com/file", .chunks(chunks))
        var configuration = SessionConfiguration.stubbed(by: stubs)
        configuration.progressInterval = .zero
        let session = Session(configuration: configuration)
        let request = session.request("https://api.example.com/file")
        let events = request.events
        let body = try await request.data()
        var progress: [Int64] = []
        for try await event in events {
            if case .downloadProgress(let value) = event { progress.append(value.completedBytes) }
        }
        #expect(body.count == 5000)
        #expect(progress.count >= 2, "\(progress)")
        #expect(progress.last == 5000)
        #expect(progress == progress.sorted())
        await session.shutdown()
    }

    @Test func aConsumerThatStopsReadingStopsTheStub() async throws {
        let stubs = HTTPStubs()
        let piece = Data(count: 16 << 10)
        let total = 64 * piece.count
        let big = stubs.register(.get, "https://api.example.com/big", .chunks(Array(repeating: StubChunk(piece), count: 64)))
        var configuration = SessionConfiguration.stubbed(by: stubs)
        configuration.streamBufferSize = 32 << 10
        let session = Session(configuration: configuration)
        var iterator = session.request("https://api.example.com/big").bytes.makeAsyncIterator()
        _ = try await iterator.next()
        // The stream pauses once its buffer is full: the stub's delivery stops well short of the body.
        var last = -1
        var settled = 0
        while settled < 20 {
            try await Task.sleep(for: .milliseconds(10))
            let now = stubs.bodyBytesSent(by: big)
            settled = now == last ? settled + 1 : 0
            last = now
        }
        #expect(last < total / 2, "\(last) of \(total)")
        var received = 0
        while let chunk = try await iterator.next() { received += chunk.count }
        #expect(received + piece.count >= total - piece.count)
        #expect(stubs.bodyBytesSent(by: big) == total)
        await session.shutdown()
    }

    @Test func redirectsAreFollowedByCurlew() async throws {
        let stubs = HTTPStubs()
        stubs.register(.get, "https://api.example.com/old", .redirect(to: "/new"))
        stubs.register(.get, "https://api.example.com/new", .text("moved here"))
        let session = Session(configuration: .stubbed(by: stubs))
        #expect(try await session.request("https://api.example.com/old").string() == "moved here")
        #expect(stubs.receivedRequests.map(\.url.path) == ["/old", "/new"])
        await session.shutdown()
    }

    @Test func cookiesAreStoredAndSentByCurlew() async throws {
        let stubs = HTTPStubs()
        stubs.register(.get, "https://api.example.com/login", .status(204, headers: ["Set-Cookie": "session=abc; Path=/"]))
        let me = stubs.register(.get, "https://api.example.com/me", .text("you"))
        var configuration = SessionConfiguration.stubbed(by: stubs)
        configuration.cookieStorage = CookieJar()
        let session = Session(configuration: configuration)
        _ = try await session.request("https://api.example.com/login").data()
        _ = try await session.request("https://api.example.com/me").data()
        #expect(stubs.requests(answeredBy: me).first?.header("Cookie") == "session=abc")
        await session.shutdown()
    }

    @Test func retriesHappenInCurlew() async throws {
        let stubs = HTTPStubs()
        let flaky = stubs.register(.get, "https://api.example.com/flaky", .status(503), .text("ok"))
        let session = Session(
            configuration: .stubbed(by: stubs),
            interceptors: [RetryPolicy(backoffScale: .milliseconds(1), jitter: .disabled)])
        #expect(try await session.request("https://api.example.com/flaky").validate().string() == "ok")
        #expect(stubs.matchCount(of: flaky) == 2)
        await session.shutdown()
    }

    @Test func aCancelledRequestStopsItsStub() async throws {
        let stubs = HTTPStubs()
        stubs.register(.get, "https://api.example.com/slow", .text("late").delayed(by: .seconds(600)))
        let session = Session(configuration: .stubbed(by: stubs))
        let request = session.request("https://api.example.com/slow")
        let task = Task { await failure(request) }
        while stubs.receivedRequests.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        request.cancel()
        let error = await task.value
        #expect(error?.kind == .cancelled, "\(String(describing: error))")
        await session.shutdown()
    }
}
