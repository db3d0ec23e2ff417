import Foundation
import HTTPTypes
import Synchronization
import Testing
import TestServer

@testable import Curlew

/// What a hostile server or a shared session could make the cache keep or replay: credentials
/// and request values on disk, `Set-Cookie` replayed to the next caller, two servers behind one
/// URL, partial and `HEAD` responses.
@Suite struct HTTPCacheHardeningTests {
    /// Every file under `directory`, read whole.
    static func contents(of directory: URL) -> [Data] {
        let names = (try? FileManager.default.subpathsOfDirectory(atPath: directory.path)) ?? []
        return names.compactMap { try? Data(contentsOf: directory.appendingPathComponent($0)) }
    }

    /// A response for a user, even one every cache may store (`public`), is kept in memory only:
    /// no file holds it, the credential or anything of the user's; an anonymous one still goes
    /// to disk. Before the fix, each went to disk, and a URL's password was written in the key.
    @Test(arguments: CredentialCacheBed.Way.allCases)
    func nothingOfAUsersRequestReachesTheDisk(way: CredentialCacheBed.Way) async throws {
        try await HTTPCacheStoreTests.withDirectory { directory in
            let cache = try HTTPCache(memoryCapacity: 1 << 20, diskCapacity: 1 << 20, directory: directory)
            try await CredentialCacheBed.with(way, cache: cache) { bed in
                let alice = CredentialCacheBed.User.alice
                _ = try await bed.get(user: alice)
                #expect(try await bed.get(user: alice).status == .hit)
                #expect(cache.statistics.diskEntries == 0)
                let secrets = [alice.password, alice.token, alice.basic, "sid=alice", "n=1"].map { Data($0.utf8) }
                for file in Self.contents(of: directory) {
                    #expect(!secrets.contains { file.range(of: $0) != nil })
                }
                _ = try await bed.get(user: nil)
                #expect(cache.statistics.diskEntries == 1)
            }
        }
    }

    /// `Vary` naming a field that carries a secret of the caller's own under a name that says
    /// nothing of it (a field named like a secret, `X-Api-Key`, makes the request credentialed,
    /// and its entry never reaches the disk at all): the entry is stored and selects by it, but
    /// the disk holds only a digest of it.
    @Test func aVaryNamedSecretIsNotWrittenToDisk() async throws {
        try await HTTPCacheStoreTests.withDirectory { directory in
            let fixture = try await CacheFixture {
                try HTTPCache(memoryCapacity: 0, diskCapacity: 1 << 20, directory: directory, now: $0.function)
            }
            let url = fixture.url([("Cache-Control", "max-age=60"), ("Vary", "X-Tenant, Accept-Language")])
            let key = HTTPField.Name("X-Tenant")!
            let secret = "key-7f3a9c-SECRET"
            _ = try await fixture.get(url, headers: [key: secret, .acceptLanguage: "de-CH"])
            #expect(fixture.cache.statistics.diskEntries == 1)
            for file in Self.contents(of: directory) {
                #expect(file.range(of: Data(secret.utf8)) == nil)
            }
            #expect(try await fixture.get(url, headers: [key: secret, .acceptLanguage: "de-CH"]).status == .hit)
            #expect(try await fixture.get(url, headers: [key: "another-key", .acceptLanguage: "de-CH"]).status == .miss)
            #expect(fixture.count == 2)
        }
    }

    /// A response that sets a cookie (a new session, say) is not stored: served again, the next
    /// caller — another user of the session — would get the cookie. A cacher that removes the
    /// field lets the rest be stored.
    @Test func aResponseThatSetsACookieIsNotStored() async throws {
        let fixture = try await CacheFixture()
        let url = fixture.url([("Cache-Control", "public, max-age=60"), ("Set-Cookie", "sid=visitor-1")])
        let first = try await fixture.get(url)
        #expect(first.head.headerFields[.setCookie] == "sid=visitor-1")
        let second = try await fixture.get(url)
        #expect(second.status == .miss && fixture.count == 2 && fixture.cache.statistics.memoryEntries == 0)
        let stripping = ResponseCacher(behavior: .modify { _, response in
            var response = response
            response.headerFields[.setCookie] = nil
            return response
        })
        _ = try await fixture.get(url, cacher: stripping)
        let stored = try await fixture.get(url)
        #expect(stored.status == .hit && stored.head.headerFields[.setCookie] == nil && fixture.count == 3)
    }

    /// A `304` that sets a cookie: the request that got it sees the cookie, but the stored head
    /// does not keep it, so the next revalidated response does not replay it.
    @Test func aCookieSetByA304IsNotStored() async throws {
        let answers = Mutex(0)
        let server = try await ScriptedHTTPServer.start { request in
            let number = answers.withLock { count in
                count += 1
                return count
            }
            let fields = [("Cache-Control", "no-cache"), ("ETag", "\"v\"")]
            guard request.header("If-None-Match") == "\"v\"" else { return .text("body", headers: fields) }
            return ScriptedResponse(status: 304, headers: number == 2 ? fields + [("Set-Cookie", "sid=second")] : fields)
        }
        var configuration = SessionConfiguration()
        configuration.cache = try HTTPCache()
        let session = Session(configuration: configuration)
        let url = server.url("/revalidated")
        do {
            _ = try await session.request(url).response
            let second = try await session.request(url).response
            #expect(second.cacheStatus == .revalidated && second.head.headerFields[.setCookie] == "sid=second")
            let third = try await session.request(url).response
            #expect(third.cacheStatus == .revalidated && third.head.headerFields[.setCookie] == nil)
            #expect(String(decoding: third.value, as: UTF8.self) == "body")
        } catch {
            Issue.record(error)
        }
        await session.shutdown()
        await server.shutdown()
    }

    /// Two servers on two Unix sockets answer the same URL: the socket is part of the key, so
    /// one server's response never answers a request to the other.
    @Test func twoSocketsBehindOneURLAreTwoEntries() async throws {
        try await withUnixSocketServer { first, firstPath in
            try await withUnixSocketServer { second, secondPath in
                var configuration = SessionConfiguration()
                configuration.cache = try HTTPCache()
                let session = Session(configuration: configuration)
                let url = URL(string: "http://localhost/cache/sockets?Cache-Control=max-age%3D60")!
                func get(_ path: String) async throws -> Response<Data> {
                    var options = RequestOptions()
                    options.unixSocketPath = path
                    return try await session.request(url, options: options).response
                }
                do {
                    #expect(try await get(firstPath).cacheStatus == .miss)
                    #expect(try await get(secondPath).cacheStatus == .miss)
                    #expect(try await get(firstPath).cacheStatus == .hit)
                } catch {
                    Issue.record(error)
                }
                #expect(first.requestCount(path: "/cache/sockets") == 1 && second.requestCount(path: "/cache/sockets") == 1)
                await session.shutdown()
            }
        }
    }

    /// A server that answers a plain GET with `206` (a part, whatever it claims) is never
    /// stored; a request with its own `Range` passes the cache by and leaves the entry alone.
    @Test func partialResponsesAndRangeRequestsPassTheCacheBy() async throws {
        let fixture = try await CacheFixture()
        let partial = fixture.url([("Cache-Control", "public, max-age=60"), ("Content-Range", "bytes 0-3/100")], suffix: "/partial")
        let hostile: HTTPFields = [HTTPField.Name("X-Test-Status")!: "206"]
        _ = try await fixture.get(partial, headers: hostile)
        #expect(try await fixture.get(partial).status == .miss)
        #expect(fixture.server.requestCount(path: "/cache/\(fixture.name)/partial") == 2)

        let url = fixture.url([("Cache-Control", "max-age=60")])
        _ = try await fixture.get(url)
        let ranged = try await fixture.get(url, headers: [.range: "bytes=0-3"])
        #expect(ranged.status == nil && ranged.body.contains("#2"))
        let stored = try await fixture.get(url)
        #expect(stored.status == .hit && stored.body.contains("#1") && fixture.count == 2)
    }

    /// A `HEAD` is answered from a stored `GET` but never stored itself: its empty body must
    /// not answer a later `GET`.
    @Test func aHeadResponseIsNotStored() async throws {
        let fixture = try await CacheFixture()
        let url = fixture.url([("Cache-Control", "max-age=60")])
        let head = try await fixture.session.request(url, method: .head).response
        #expect(head.cacheStatus == .miss)
        let get = try await fixture.get(url)
        #expect(get.status == .miss && get.body.contains("#2") && fixture.cache.statistics.memoryEntries == 1)
    }
}
