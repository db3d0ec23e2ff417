import Foundation
import HTTPTypes
import Testing

@testable import Curlew

/// The stores: least-recently-used eviction under the byte limits, the disk store across a
/// restart, damaged and torn entries, and downloads served from disk entries.
@Suite struct HTTPCacheStoreTests {
    /// A per-test directory, removed by `body` returning or throwing.
    static func withDirectory(_ body: (URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory)
    }

    static func head(_ key: String) -> CacheEntryHead {
        CacheEntryHead(
            key: key, status: 200, reason: "OK", fields: [["Cache-Control", "max-age=60"]], vary: nil,
            requestTime: Date(timeIntervalSince1970: 0), responseTime: Date(timeIntervalSince1970: 0), bodyLength: 100,
            bodyChecksum: 0)
    }

    static func entryFiles(_ directory: URL) -> [URL] {
        ((try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? [])
            .filter { $0.pathExtension == "entry" }
    }

    @Test func memoryStoreEvictsTheLeastRecentlyUsed() {
        let size = 100 + Self.head("a").approximateSize
        let store = MemoryCacheStore(limit: 3 * size)
        for key in ["a", "b", "c"] { store.store(Self.head(key), body: .memory(Data(count: 100))) }
        _ = store.entry(forKey: "a")
        store.store(Self.head("d"), body: .memory(Data(count: 100)))
        #expect(store.entry(forKey: "b") == nil)
        #expect(store.entry(forKey: "a") != nil && store.entry(forKey: "c") != nil && store.entry(forKey: "d") != nil)
        #expect(store.byteCount <= 3 * size)
        #expect(!store.store(Self.head("huge"), body: .memory(Data(count: 4 * size))))
    }

    @Test func diskStoreEvictsTheLeastRecentlyUsedAndSurvivesARestart() async throws {
        try await Self.withDirectory { directory in
            let store = try DiskCacheStore(directory: directory, limit: 1 << 20)
            store.store(Self.head("probe"), body: .memory(Data(count: 100)))
            let size = store.byteCount
            store.removeAll()
            let limited = try DiskCacheStore(directory: directory, limit: 3 * size)
            for key in ["a", "b", "c"] { limited.store(Self.head(key), body: .memory(Data(repeating: 7, count: 100))) }
            _ = limited.entry(forKey: "a")
            limited.store(Self.head("d"), body: .memory(Data(repeating: 7, count: 100)))
            #expect(limited.entry(forKey: "b") == nil && limited.entryCount == 3)
            #expect(Self.entryFiles(directory).count == 3)
            let reopened = try DiskCacheStore(directory: directory, limit: 3 * size)
            #expect(reopened.entryCount == 3 && reopened.byteCount == limited.byteCount)
            let entry = try #require(reopened.entry(forKey: "a"))
            #expect(try CachedBodyReader.data(of: entry) == Data(repeating: 7, count: 100))
        }
    }

    @Test func tornAndForeignFilesAreDroppedWhenTheIndexIsBuilt() async throws {
        try await Self.withDirectory { directory in
            let store = try DiskCacheStore(directory: directory, limit: 1 << 20)
            store.store(Self.head("torn"), body: .memory(Data(count: 100)))
            store.store(Self.head("kept"), body: .memory(Data(count: 100)))
            let torn = try #require(store.entry(forKey: "torn"))
            guard case .file(let path, _) = torn.body else { throw CurlewError(.fileSystem, "not a file entry") }
            truncate(path, off_t(torn.head.bodyLength - 5 + 20))
            try Data("garbage".utf8).write(to: directory.appendingPathComponent("junk.entry"))
            try Data("half".utf8).write(to: directory.appendingPathComponent("tmp-left-over"))
            let reopened = try DiskCacheStore(directory: directory, limit: 1 << 20)
            #expect(reopened.entryCount == 1 && reopened.entry(forKey: "kept") != nil)
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(names.count == 1)
        }
    }

    /// A cache reopened on the same directory serves what the previous one stored; a body whose
    /// bytes changed on disk is dropped and loaded again, never served.
    @Test func diskCacheServesAfterRestartAndDropsADamagedBody() async throws {
        try await Self.withDirectory { directory in
            let first = try await CacheFixture { try HTTPCache(memoryCapacity: 0, diskCapacity: 1 << 20, directory: directory, now: $0.function) }
            let url = first.url([("Cache-Control", "max-age=60")])
            _ = try await first.get(url)
            let second = try await CacheFixture { try HTTPCache(memoryCapacity: 0, diskCapacity: 1 << 20, directory: directory, now: $0.function) }
            let served = try await second.session.request(url).response
            #expect(served.cacheStatus == .hit && String(decoding: served.value, as: UTF8.self).contains("#1"))
            #expect(first.count == 1)
            print("HTTP cache figures after a restart: \(second.cache.statistics)")

            let file = try #require(Self.entryFiles(directory).first)
            var bytes = try Data(contentsOf: file)
            bytes[bytes.count - 1] ^= 0xFF
            try bytes.write(to: file)
            let reloaded = try await second.session.request(url).response
            #expect(reloaded.cacheStatus == .miss && String(decoding: reloaded.value, as: UTF8.self).contains("#2"))
            #expect(try await second.session.request(url).response.cacheStatus == .hit)
        }
    }

    @Test func downloadsAreStoredOnDiskAndServedByCopying() async throws {
        try await Self.withDirectory { directory in
            let fixture = try await CacheFixture {
                try HTTPCache(memoryCapacity: 1 << 20, diskCapacity: 1 << 20, directory: directory.appendingPathComponent("store"), now: $0.function)
            }
            let url = fixture.url([("Cache-Control", "max-age=60")])
            let one = try await fixture.session.download(url, to: .file(directory.appendingPathComponent("one"))).response
            let two = try await fixture.session.download(url, to: .file(directory.appendingPathComponent("two"))).response
            #expect(one.cacheStatus == .miss && two.cacheStatus == .hit && fixture.count == 1)
            #expect(try Data(contentsOf: one.value) == Data(contentsOf: two.value))
            let collected = try await fixture.get(url)
            #expect(collected.status == .hit && collected.body.contains("#1"))
            #expect(fixture.cache.statistics.diskEntries == 1)
        }
    }

    /// A `bytes` stream is served from a fresh entry in chunks (memory or disk); a damaged disk
    /// entry is not streamed but loaded from the network.
    @Test func streamsAreServedFromFreshEntries() async throws {
        try await Self.withDirectory { directory in
            let fixture = try await CacheFixture {
                try HTTPCache(memoryCapacity: 0, diskCapacity: 1 << 20, directory: directory, now: $0.function)
            }
            let url = fixture.url([("Cache-Control", "max-age=60")])
            func streamed() async throws -> String {
                var body = Data()
                for try await chunk in fixture.session.request(url).bytes { body.append(chunk) }
                return String(decoding: body, as: UTF8.self)
            }
            // A stream alone is not stored.
            _ = try await streamed()
            #expect(fixture.cache.statistics.diskEntries == 0)
            _ = try await fixture.get(url)
            #expect(try await streamed().contains("#2") && fixture.count == 2)
            let file = try #require(Self.entryFiles(directory).first)
            var bytes = try Data(contentsOf: file)
            bytes[bytes.count - 1] ^= 0xFF
            try bytes.write(to: file)
            #expect(try await streamed().contains("#3") && fixture.count == 3)
        }
    }

    @Test func cachedBodyStreamHandsOutChunks() throws {
        let body = Data((0..<(CachedBodyReader.chunkSize * 2 + 10)).map { UInt8(truncatingIfNeeded: $0) })
        var head = Self.head("m")
        head.bodyLength = body.count
        let stream = try #require(CachedBodyStream(entry: CacheEntry(head: head, body: .memory(body))))
        var collected = Data()
        var chunks = 0
        while let chunk = try stream.next() {
            collected.append(chunk)
            chunks += 1
        }
        #expect(collected == body && chunks == 3)
    }
}
