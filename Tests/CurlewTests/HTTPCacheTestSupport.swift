import Foundation
import HTTPTypes
import Synchronization
import TestServer

@testable import Curlew

/// A clock the cache tests move by hand.
final class CacheTestClock: Sendable {
    private let time = Mutex(Date(timeIntervalSince1970: 1_700_000_000))

    var now: Date { time.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { time.withLock { $0 += seconds } }
    var function: @Sendable () -> Date { { [self] in now } }

    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}

/// A session with a cache on a test clock, and the test server's `/cache/…` route.
struct CacheFixture {
    let server: TestServer
    let clock = CacheTestClock()
    let cache: HTTPCache
    let session: Session
    let name = "c-\(UUID().uuidString)"

    init(cache make: (CacheTestClock) throws -> HTTPCache = { try HTTPCache(now: $0.function) }) async throws {
        server = try await Fixtures.server()
        cache = try make(clock)
        var configuration = SessionConfiguration()
        configuration.cache = cache
        configuration.acceptLanguage = nil
        session = Session(configuration: configuration)
    }

    /// `/cache/{name}{suffix}` answering with `fields`.
    func url(_ fields: [(String, String)], suffix: String = "") -> URL {
        var components = URLComponents(url: server.url("/cache/\(name)\(suffix)"), resolvingAgainstBaseURL: false)!
        components.queryItems = fields.map { URLQueryItem(name: $0.0, value: $0.1) }
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return components.url!
    }

    var count: Int { server.requestCount(path: "/cache/\(name)") }

    /// The body and cache status of a GET.
    func get(_ url: URL, headers: HTTPFields = [:], policy: CachePolicy? = nil, cacher: ResponseCacher? = nil)
        async throws -> (body: String, status: CacheStatus?, head: HTTPResponse)
    {
        var options = RequestOptions()
        options.cachePolicy = policy
        options.responseCacher = cacher
        let response = try await session.request(url, headers: RequestHeaders(headers), options: options).response
        return (String(decoding: response.value, as: UTF8.self), response.cacheStatus, response.head)
    }
}
