@testable import Curlew
import Foundation
import Testing
import TestServer

@Suite("libcurl's own limits give clear errors, not \"out of memory\"")
struct LibcurlLimitErrorTests {
    /// A URL on the test server of exactly `length` bytes.
    private func url(on server: TestServer, length: Int) -> URL {
        let base = server.url("/anything/\(UUID().uuidString)/").absoluteString
        return URL(string: base + String(repeating: "a", count: length - base.utf8.count)) ?? server.url("/")
    }

    @Test func aOneMebibyteURLIsInvalidAndNeverSent() async throws {
        let server = try await Fixtures.server()
        let target = url(on: server, length: 1 << 20)
        let error = await failure(Fixtures.session.request(target))
        #expect(error?.kind == .invalidURL)
        #expect(error?.message.contains("the URL is too long: 1048576 bytes") == true, "\(String(describing: error?.message))")
        #expect(error?.curlCode == nil, "caught before libcurl")
        #expect(server.requestCount(path: target.path) == 0)
    }

    @Test func theURLLimitIsExact() async throws {
        let server = try await Fixtures.server()
        let limit = OutgoingRequest.maximumURLLength
        #expect(limit == 512 << 10)
        let longest = url(on: server, length: limit)
        #expect(longest.absoluteString.utf8.count == limit)
        // At the limit the request goes out (whatever the server thinks of it).
        _ = try await Fixtures.session.request(longest).data()
        let over = await failure(Fixtures.session.request(url(on: server, length: limit + 1)))
        #expect(over?.kind == .invalidURL)
    }

    @Test func aResponseHeaderLineOverLibcurlsLimitIsMalformed() async throws {
        let server = try await Fixtures.server()
        let error = await failure(Fixtures.session.request(server.url("/fault/huge-headers?single=1&size=\(200 << 10)")))
        #expect(error?.kind == .malformedResponse)
        #expect(error?.message.contains("header line too long") == true, "\(String(describing: error))")
        #expect(error?.curlCode == 27)
        // Just under libcurl's 100 KiB a line is fine.
        let fits = try await Fixtures.session.request(server.url("/fault/huge-headers?single=1&size=\(90 << 10)")).string()
        #expect(fits == "ok")
    }

    @Test func aRequestHeadOverLibcurlsLimitIsAnInvalidRequest() async throws {
        let server = try await Fixtures.server()
        let path = "/anything/big-head-\(UUID().uuidString)"
        let headers = ["X-Big": String(repeating: "b", count: 1 << 20)]
        let error = await failure(Fixtures.session.request(server.url(path), headers: RequestHeaders(headers)))
        #expect(error?.kind == .invalidRequest)
        #expect(error?.message.contains("request head is too large") == true, "\(String(describing: error))")
        #expect(server.requestCount(path: path) == 0)
    }

    @Test func aBadChunkSizeIsBadChunkedEncoding() async throws {
        let server = try await Fixtures.server()
        let error = await failure(Fixtures.session.request(server.url("/fault/bad-chunk-size")))
        #expect(error?.kind == .malformedResponse)
        #expect(error?.message.hasPrefix("bad chunked encoding") == true, "\(String(describing: error))")
        #expect(error?.curlCode == 56)
        #expect(error?.status == .ok)
    }

    @Test func badChunkedEncodingIsNotRetriedAsALostConnectionButTooSlowIs() async throws {
        let server = try await Fixtures.server()
        let url = server.url("/get")
        let request = OutgoingRequest(url: url)
        let policy = RetryPolicy.default
        let badChunk = CurlewError(.malformedResponse, "bad chunked encoding", url: url, curlCode: 56)
        #expect(!policy.isRetryable(request, error: badChunk))
        // The same curl code from a reset is still a lost connection, and so is an empty reply.
        #expect(policy.isRetryable(request, error: CurlewError(.transport, "reset", url: url, curlCode: 56)))
        #expect(policy.isRetryable(request, error: CurlewError(.malformedResponse, "empty reply", url: url, curlCode: 52)))
        #expect(policy.isRetryable(request, error: CurlewError(.tooSlow, "slow", url: url, curlCode: 28)))
    }
}
