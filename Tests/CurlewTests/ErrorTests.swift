import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

@Suite("Bad input and faults give clear errors")
struct ErrorTests {
    let session = Fixtures.session

    @Test func invalidURL() async throws {
        let error = await failure(session.request("ht tp://exa mple"))
        #expect(error?.kind == .invalidURL)
        let noHost = await failure(session.request("http://"))
        #expect(noHost?.kind == .invalidURL)
    }

    /// A URL that Curlew's own checks pass but libcurl's parser refuses fails before anything
    /// is sent, naming libcurl's reason.
    @Test func aURLLibcurlRefusesFailsClearly() async throws {
        let error = await failure(session.request("http://a+b.invalid/x"))
        #expect(error?.kind == .invalidURL)
        #expect(error?.message == "libcurl rejected the URL: Bad hostname", "\(String(describing: error))")
        #expect(error?.url?.absoluteString == "http://a+b.invalid/x")
    }

    @Test(arguments: ["ftp://127.0.0.1/file", "file:///etc/passwd", "gopher://127.0.0.1/"])
    func onlyHTTPAndHTTPSSchemes(_ url: String) async throws {
        let error = await failure(session.request(url))
        #expect(error?.kind == .unsupportedScheme)
        #expect(error?.description.contains(url) == true)
    }

    @Test func crOrLFInHeaderIsRejected() async throws {
        let server = try await Fixtures.server()
        // A path of its own: the shared server's counts for common paths move with other tests.
        let path = "/anything/crlf-\(UUID().uuidString)"
        let value = await failure(session.request(server.url(path), headers: ["X-Evil": "a\r\nInjected: yes"]))
        #expect(value?.kind == .invalidHeader)
        let name = await failure(session.request(server.url(path), headers: ["X-Ev\nil": "a"]))
        #expect(name?.kind == .invalidHeader)
        #expect(server.requestCount(path: path) == 0, "a rejected request must not be sent")
        // The count does see a request that is sent.
        _ = try await session.request(server.url(path), headers: ["X-Clean": "a"]).validate().data()
        #expect(server.requestCount(path: path) == 1)
    }

    @Test func connectionRefused() async throws {
        let port = try closedLoopbackPort()
        let error = await failure(session.request("http://127.0.0.1:\(port)/"))
        #expect(error?.kind == .connectionRefused)
        #expect(error?.curlCode == 7)
        #expect(error?.url?.port == port)
    }

    @Test func unresolvableHost() async throws {
        // Directly: through an environment proxy the proxy resolves, and fails as itself.
        var configuration = SessionConfiguration()
        configuration.proxy = .direct
        let direct = Session(configuration: configuration)
        let error = await failure(direct.request("http://no-such-host.invalid/"))
        #expect(error?.kind == .hostNotFound)
        await direct.shutdown()
    }

    @Test func connectTimeout() async throws {
        let listener = try TestServer.makeUnacceptingListener()
        defer { listener.close() }
        var options = RequestOptions()
        options.timeouts.connect = .milliseconds(300)
        // Only a guard against a hang (libcurl's own connect limit is 300 s): were the connect
        // limit not applied, this one would end the request, with another kind.
        options.timeouts.total = .seconds(120)
        let error = await failure(session.request("http://127.0.0.1:\(listener.port)/", options: options))
        #expect(error?.kind == .connectTimeout, "\(String(describing: error))")
    }

    @Test func totalTimeout() async throws {
        let server = try await Fixtures.server()
        var options = RequestOptions()
        options.timeouts.total = .milliseconds(400)
        let error = await failure(session.request(server.url("/drip?bytes=100&duration=3000"), options: options))
        #expect(error?.kind == .totalTimeout)
    }

    @Test func idleTimeout() async throws {
        let server = try await Fixtures.server()
        var options = RequestOptions()
        options.timeouts.idle = .seconds(1)
        // Only a guard against a hang: were the idle limit not applied, this one would end the
        // request, with another kind.
        options.timeouts.total = .seconds(120)
        let clock = ContinuousClock()
        let start = clock.now
        let error = await failure(session.request(server.url("/fault/never-answer"), options: options))
        #expect(error?.kind == .idleTimeout, "\(String(describing: error))")
        #expect(clock.now - start >= .seconds(1), "not before the limit")
        let stalled = await failure(session.request(server.url("/fault/stall-after-head?length=1000"), options: options))
        #expect(stalled?.kind == .idleTimeout)
    }

    @Test func serverClosesMidBody() async throws {
        let server = try await Fixtures.server()
        let error = await failure(session.request(server.url("/fault/close-mid-body?length=1000&send=400")))
        #expect(error?.kind == .connectionClosedMidBody)
        #expect(error?.status == .ok)
        #expect(error?.curlCode == 18)
    }

    @Test func malformedStatusLine() async throws {
        let server = try await Fixtures.server()
        let error = await failure(session.request(server.url("/fault/malformed-head")))
        #expect(error?.kind == .malformedResponse)
    }

    @Test func hugeHeadersAreRejected() async throws {
        let server = try await Fixtures.server()
        let error = await failure(session.request(server.url("/fault/huge-headers?size=\(1 << 20)")))
        #expect(error?.kind == .malformedResponse)
    }

    @Test func badContentEncodingIsAnError() async throws {
        let server = try await Fixtures.server()
        let error = await failure(session.request(server.url("/fault/bad-gzip")))
        #expect(error?.kind == .malformedResponse)
    }

    @Test func bodyOverTheLimit() async throws {
        let server = try await Fixtures.server()
        var options = RequestOptions()
        options.maximumBodySize = 1000
        let declared = await failure(session.request(server.url("/bytes/5000"), options: options))
        #expect(declared?.kind == .bodyTooLarge)
        let chunked = await failure(session.request(server.url("/stream-bytes/1001?chunk=100"), options: options))
        #expect(chunked?.kind == .bodyTooLarge)
        let fits = try await session.request(server.url("/bytes/1000"), options: options).data()
        #expect(fits.count == 1000)
    }

    /// Without a declared length the limit is checked as chunks arrive, against the total with
    /// the new chunk: exactly the limit fits, and a last chunk that crosses it fails (a check one
    /// chunk late would let it through, as no chunk follows). See also `bodyOverTheLimit` (1001).
    @Test func chunkedBodyExactlyAtTheLimitFitsAndTheCrossingChunkFails() async throws {
        let server = try await Fixtures.server()
        var options = RequestOptions()
        options.maximumBodySize = 1000
        let exact = try await session.request(server.url("/stream-bytes/1000?chunk=100"), options: options).data()
        #expect(exact.count == 1000)
        let oneChunkOver = await failure(session.request(server.url("/stream-bytes/1100?chunk=100"), options: options))
        #expect(oneChunkOver?.kind == .bodyTooLarge)
    }

    @Test func decompressionBombIsStoppedWithLittleMemory() async throws {
        let server = try await Fixtures.server()
        let before = try Fixtures.residentBytes()
        let error = await failure(session.request(server.url("/gzip-bomb?size=\(200 << 20)")))
        #expect(error?.kind == .decompressionBomb)
        #expect(try Fixtures.residentBytes() - before < 64 << 20)
    }

    /// The ratio limit itself, small and fast (the Memory test uses 200 MiB): 4 MiB of zeros
    /// gzip to about 4 KiB, a ratio near 1000.
    @Test func decompressionRatioLimitStopsAGzipBomb() async throws {
        let server = try await Fixtures.server()
        let url = server.url("/gzip-bomb?size=\(4 << 20)")
        func session(_ limit: DecompressionLimit) -> Session {
            var configuration = SessionConfiguration()
            configuration.decompressionLimit = limit
            return Session(configuration: configuration)
        }
        let strict = session(DecompressionLimit(ratio: 10, minimumSize: 1 << 20))
        let error = await failure(strict.request(url))
        #expect(error?.kind == .decompressionBomb)
        // The controls: the same body passes below the minimum size and with no limit.
        let small = session(DecompressionLimit(ratio: 10, minimumSize: 8 << 20))
        let inflated = try await small.request(url).validate().data()
        #expect(inflated.count == 4 << 20)
        #expect(inflated.allSatisfy { $0 == 0 })
        let unlimited = session(.unlimited)
        #expect(try await unlimited.request(url).validate().data().count == 4 << 20)
        // A ratio above the body's own (about 1000) passes too: the check compares the decoded
        // bytes with the coded bytes the decoder took, not a counter that lags one read buffer.
        let generous = session(DecompressionLimit(ratio: 100_000, minimumSize: 1 << 20))
        let body = try await generous.request(url).validate().data()
        #expect(body.count == 4 << 20)
        for each in [strict, small, unlimited, generous] { await each.shutdown() }
    }

    @Test func errorsCarryURLStatusAndBody() async throws {
        let server = try await Fixtures.server()
        do {
            _ = try await session.request(server.url("/status/418")).validate().data()
            Issue.record("expected an error")
        } catch {
            #expect(error.url == server.url("/status/418"))
            #expect(error.status?.code == 418)
            #expect(error.responseBody != nil)
            #expect(error.description.contains("418"))
        }
    }

}
