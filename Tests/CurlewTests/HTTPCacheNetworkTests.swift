import Foundation
import HTTPTypes
import Testing

@testable import Curlew

/// The cache against the test server, on a hand-moved clock: directives, revalidation, Vary,
/// invalidation, policies, the response cacher, coalescing.
@Suite struct HTTPCacheNetworkTests {
    @Test func maxAgeIsServedUntilItExpires() async throws {
        let fixture = try await CacheFixture()
        let url = fixture.url([("Cache-Control", "max-age=60")])
        #expect(try await fixture.get(url).status == .miss)
        fixture.clock.advance(59)
        let second = try await fixture.get(url)
        #expect(second.status == .hit && second.body.contains("#1") && fixture.count == 1)
        fixture.clock.advance(2)
        let third = try await fixture.get(url)
        #expect(third.status == .miss && third.body.contains("#2") && fixture.count == 2)
    }

    @Test func noStoreIsNeverStored() async throws {
        let fixture = try await CacheFixture()
        let url = fixture.url([("Cache-Control", "no-store, max-age=60")])
        _ = try await fixture.get(url)
        #expect(try await fixture.get(url).status == .miss)
        #expect(fixture.count == 2 && fixture.cache.statistics.memoryEntries == 0)
    }

    @Test func aNewResponseThatMayNotBeStoredReplacesTheStoredOne() async throws {
        let fixture = try await CacheFixture()
        let url = fixture.url([("Cache-Control", "max-age=60")])
        _ = try await fixture.get(url)
        _ = try await fixture.get(url, policy: .reloadIgnoringCache, cacher: .doNotCache)
        #expect(try await fixture.get(url).status == .miss && fixture.count == 3)
    }

    /// Events and monitors see the cache status in the completion's metrics.
    @Test func completionEventCarriesTheCacheStatus() async throws {
        let fixture = try await CacheFixture()
        let url = fixture.url([("Cache-Control", "max-age=60")])
        _ = try await fixture.get(url)
        var statuses: [CacheStatus?] = []
        var heads = 0
        for try await event in fixture.session.request(url).events {
            if case .completed(let completion) = event { statuses.append(completion.metrics.cacheStatus) }
            if case .response = event { heads += 1 }
        }
        #expect(statuses == [.hit] && heads == 1)
    }

    @Test func requestNoStorePassesTheCacheBy() async throws {
        let fixture = try await CacheFixture()
        let url = fixture.url([("Cache-Control", "max-age=60")])
        _ = try await fixture.get(url, headers: [.cacheControl: "no-store"])
        _ = try await fixture.get(url)
        #expect(fixture.count == 2)
    }

    /// `no-cache`: stored, but revalidated each time; the 304's fields update the stored head.
    @Test func noCacheRevalidatesAndA304MergesItsFields() async throws {
        let fixture = try await CacheFixture()
        let url = fixture.url([("Cache-Control", "no-cache"), ("ETag", "\"v1\"")])
        _ = try await fixture.get(url)
        let second = try await fixture.get(url)
        #expect(second.status == .revalidated && second.body.contains("#1") && fixture.count == 2)
        #expect(second.head.headerFields[HTTPField.Name("X-Served")!] == "2")
        #expect(second.head.headerFields[.eTag] == "\"v1\"")
    }

    @Test func lastModifiedRevalidatesWithIfModifiedSince() async throws {
        let fixture = try await CacheFixture()
        let modified = CacheTestClock.httpDate(fixture.clock.now.addingTimeInterval(-1000))
        // Heuristic freshness: 10 % of the 1000 s since Last-Modified.
        let url = fixture.url([("Last-Modified", modified)])
        _ = try await fixture.get(url)
        fixture.clock.advance(90)
        #expect(try await fixture.get(url).status == .hit)
        fixture.clock.advance(20)
        let stale = try await fixture.get(url)
        #expect(stale.status == .revalidated && stale.body.contains("#1") && fixture.count == 2)
    }

    @Test func privateResponsesAreStored() async throws {
        let fixture = try await CacheFixture()
        let url = fixture.url([("Cache-Control", "private, max-age=60")])
        _ = try await fixture.get(url)
        #expect(try await fixture.get(url).status == .hit && fixture.count == 1)
    }

    @Test func maxStaleServesStaleUnlessMustRevalidate() async throws {
        let fixture = try await CacheFixture()
        let lax = fixture.url([("Cache-Control", "max-age=10"), ("ETag", "\"a\"")])
        let strict = fixture.url([("Cache-Control", "max-age=10, must-revalidate"), ("ETag", "\"a\"")], suffix: "/strict")
        _ = try await fixture.get(lax)
        _ = try await fixture.get(strict)
        fixture.clock.advance(30)
        #expect(try await fixture.get(lax, headers: [.cacheControl: "max-stale=100"]).status == .stale)
        #expect(try await fixture.get(strict, headers: [.cacheControl: "max-stale=100"]).status == .revalidated)
    }

    @Test func immutableIsNotRevalidatedOnReload() async throws {
        let fixture = try await CacheFixture()
        let immutable = fixture.url([("Cache-Control", "max-age=60, immutable"), ("ETag", "\"i\"")])
        let plain = fixture.url([("Cache-Control", "max-age=60"), ("ETag", "\"p\"")], suffix: "/plain")
        _ = try await fixture.get(immutable)
        _ = try await fixture.get(plain)
        #expect(try await fixture.get(immutable, headers: [.cacheControl: "no-cache"]).status == .hit)
        #expect(try await fixture.get(plain, headers: [.cacheControl: "no-cache"]).status == .revalidated)
        fixture.clock.advance(1)
        #expect(try await fixture.get(plain, headers: [.cacheControl: "max-age=0"]).status == .revalidated)
    }

    @Test func staleWhileRevalidateServesStaleAndRevalidatesInTheBackground() async throws {
        let fixture = try await CacheFixture()
        let url = fixture.url([("Cache-Control", "max-age=10, stale-while-revalidate=100"), ("ETag", "\"s\"")])
        _ = try await fixture.get(url)
        fixture.clock.advance(20)
        let stale = try await fixture.get(url)
        #expect(stale.status == .stale && stale.body.contains("#1"))
        await fixture.cache.waitForBackgroundRevalidations()
        #expect(fixture.count == 2)
        // The 304 restarted the entry's age.
        #expect(try await fixture.get(url).status == .hit && fixture.count == 2)
        fixture.clock.advance(200)
        #expect(try await fixture.get(url).status == .revalidated)
    }

    @Test func staleIfErrorStandsInForAServerError() async throws {
        let fixture = try await CacheFixture()
        let url = fixture.url([("Cache-Control", "max-age=10, stale-if-error=100"), ("ETag", "\"e\"")])
        let without = fixture.url([("Cache-Control", "max-age=10"), ("ETag", "\"e\"")], suffix: "/plain")
        _ = try await fixture.get(url)
        _ = try await fixture.get(without)
        fixture.clock.advance(20)
        let failing: HTTPFields = [HTTPField.Name("X-Test-Status")!: "503"]
        let served = try await fixture.get(url, headers: failing)
        #expect(served.status == .stale && served.head.status.code == 200 && served.body.contains("#1"))
        let passed = try await fixture.get(without, headers: failing)
        #expect(passed.status == .miss && passed.head.status.code == 503)
    }

    @Test func expiresAgeAndDateSetTheLifetime() async throws {
        let fixture = try await CacheFixture()
        let now = fixture.clock.now
        let expires = fixture.url([("Date", CacheTestClock.httpDate(now)), ("Expires", CacheTestClock.httpDate(now + 60))])
        let aged = fixture.url([("Cache-Control", "max-age=60"), ("Age", "50")], suffix: "/aged")
        _ = try await fixture.get(expires)
        _ = try await fixture.get(aged)
        fixture.clock.advance(30)
        #expect(try await fixture.get(expires).status == .hit)
        #expect(try await fixture.get(aged).status == .miss)
        fixture.clock.advance(31)
        #expect(try await fixture.get(expires).status == .miss)
    }

    @Test func varySelectsByTheNamedRequestFields() async throws {
        let fixture = try await CacheFixture()
        let url = fixture.url([("Cache-Control", "max-age=60"), ("Vary", "Accept-Language")])
        let german: HTTPFields = [.acceptLanguage: "de"]
        _ = try await fixture.get(url, headers: german)
        let again = try await fixture.get(url, headers: german)
        #expect(again.status == .hit && again.body.hasSuffix("lang=de"))
        let english = try await fixture.get(url, headers: [.acceptLanguage: "en"])
        #expect(english.status == .miss && english.body.hasSuffix("lang=en") && fixture.count == 2)

        let star = fixture.url([("Cache-Control", "max-age=60"), ("Vary", "*")], suffix: "/star")
        _ = try await fixture.get(star)
        #expect(try await fixture.get(star).status == .miss)
    }

    @Test func unsafeMethodsInvalidateTheURLAndSameOriginLocations() async throws {
        let fixture = try await CacheFixture()
        let url = fixture.url([("Cache-Control", "max-age=60")])
        _ = try await fixture.get(url)
        _ = try await fixture.session.request(url, method: .post, body: .data(Data("x".utf8))).data()
        #expect(try await fixture.get(url).status == .miss)
        let other = fixture.url([("Location", url.absoluteString)], suffix: "/writer")
        _ = try await fixture.session.request(other, method: .delete).data()
        #expect(try await fixture.get(url).status == .miss)
        #expect(try await fixture.get(url).status == .hit)
        let foreign = fixture.url([("Location", "http://elsewhere.invalid" + url.path)], suffix: "/writer")
        _ = try await fixture.session.request(foreign, method: .put).data()
        #expect(try await fixture.get(url).status == .hit)
    }

    @Test func authorizationIsStoredOnlyWhenTheResponseAllowsIt() async throws {
        let fixture = try await CacheFixture()
        let credentials: HTTPFields = [.authorization: "Bearer t"]
        let closed = fixture.url([("Cache-Control", "max-age=60")])
        let open = fixture.url([("Cache-Control", "public, max-age=60")], suffix: "/public")
        _ = try await fixture.get(closed, headers: credentials)
        #expect(try await fixture.get(closed, headers: credentials).status == .miss)
        _ = try await fixture.get(open, headers: credentials)
        #expect(try await fixture.get(open, headers: credentials).status == .hit)
    }

    @Test func policies() async throws {
        let fixture = try await CacheFixture()
        let url = fixture.url([("Cache-Control", "max-age=10")])
        let missing = fixture.url([("Cache-Control", "max-age=10")], suffix: "/missing")
        _ = try await fixture.get(url)
        #expect(try await fixture.get(url, policy: .reloadIgnoringCache).status == .miss)
        fixture.clock.advance(100)
        let any = try await fixture.get(url, policy: .returnCacheDataElseLoad)
        #expect(any.status == .hit && any.body.contains("#2"))
        #expect(try await fixture.get(url, policy: .returnCacheDataDontLoad).status == .hit)
        #expect(fixture.count == 2)
        await #expect(throws: CurlewError.self) { _ = try await fixture.get(missing, policy: .returnCacheDataDontLoad) }
        do {
            _ = try await fixture.get(missing, headers: [.cacheControl: "only-if-cached"])
            Issue.record("only-if-cached went to the network")
        } catch {
            #expect((error as? CurlewError)?.kind == .notCached)
        }
        #expect(fixture.server.requestCount(path: "/cache/\(fixture.name)/missing") == 0)
        #expect(try await fixture.get(missing, policy: .returnCacheDataElseLoad).status == .miss)
    }

    @Test func responseCacherSkipsOrModifies() async throws {
        let modify = ResponseCacher(behavior: .modify { _, response in
            var response = response
            response.headerFields[.cacheControl] = "max-age=60"
            return response
        })
        let fixture = try await CacheFixture { try HTTPCache(responseCacher: modify, now: $0.function) }
        let url = fixture.url([("Cache-Control", "max-age=0")])
        _ = try await fixture.get(url)
        #expect(try await fixture.get(url).status == .hit)
        var options = RequestOptions()
        options.responseCacher = .doNotCache
        let skipped = fixture.url([("Cache-Control", "max-age=60")], suffix: "/skipped")
        _ = try await fixture.session.request(skipped, options: options).data()
        #expect(try await fixture.get(skipped).status == .miss)
    }

    @Test func headIsServedFromAStoredGet() async throws {
        let fixture = try await CacheFixture()
        let url = fixture.url([("Cache-Control", "max-age=60")])
        _ = try await fixture.get(url)
        let head = try await fixture.session.request(url, method: .head).response
        #expect(head.cacheStatus == .hit && head.value.isEmpty && fixture.count == 1)
    }

    /// 100 concurrent requests for one URL make one network request; prints the figures.
    @Test func concurrentRequestsAreCoalesced() async throws {
        let fixture = try await CacheFixture()
        let url = fixture.url([("Cache-Control", "max-age=60")])
        let statuses = try await withThrowingTaskGroup(of: CacheStatus?.self) { group in
            for _ in 0..<100 { group.addTask { try await fixture.get(url).status } }
            return try await group.reduce(into: [CacheStatus?]()) { $0.append($1) }
        }
        #expect(fixture.count == 1)
        #expect(statuses.filter { $0 == .miss }.count == 1 && statuses.filter { $0 == .hit }.count == 99)
        let statistics = fixture.cache.statistics
        print("HTTP cache figures: \(statistics)")
        #expect(statistics.hitRatio == 0.99 && statistics.memoryBytes > 0)
    }
}
