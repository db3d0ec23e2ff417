import Foundation
import HTTPTypes
import Testing

@testable import Curlew

#if canImport(Glibc)
import Glibc
#endif

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

    /// An `.entry` name that is a symlink is never read, even to a well-formed entry elsewhere:
    /// it is removed (not its target) when the index is built.
    @Test func aSymlinkedEntryIsNeverRead() async throws {
        try await Self.withDirectory { directory in
            let inside = directory.appendingPathComponent("store")
            let outside = directory.appendingPathComponent("elsewhere")
            let store = try DiskCacheStore(directory: inside, limit: 1 << 20)
            store.store(Self.head("kept"), body: .memory(Data(count: 100)))
            let foreign = try DiskCacheStore(directory: outside, limit: 1 << 20)
            foreign.store(Self.head("planted"), body: .memory(Data(repeating: 1, count: 100)))
            let target = try #require(Self.entryFiles(outside).first)
            let link = inside.appendingPathComponent("planted.entry")
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
            let reopened = try DiskCacheStore(directory: inside, limit: 1 << 20)
            #expect(reopened.entryCount == 1 && reopened.entry(forKey: "planted") == nil && reopened.entry(forKey: "kept") != nil)
            #expect(!FileManager.default.fileExists(atPath: link.path) && FileManager.default.fileExists(atPath: target.path))

            // An indexed entry whose file is swapped for a symlink (to an identical copy) is not
            // read through it: the body counts as damaged.
            let kept = try #require(reopened.entry(forKey: "kept"))
            guard case .file(let path, _) = kept.body else { throw CurlewError(.fileSystem, "not a file entry") }
            let copy = outside.appendingPathComponent("copy")
            try FileManager.default.copyItem(atPath: path, toPath: copy.path)
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: copy.path)
            #expect(throws: CurlewError.self) { try CachedBodyReader.data(of: kept) }
            #expect(CachedBodyStream(entry: kept) == nil)
        }
    }

    /// The store makes its directory private, and refuses one that others may write in: they
    /// could plant entries (the checksums are no signature).
    @Test func aDirectoryOthersMayWriteInIsRefused() async throws {
        try await Self.withDirectory { directory in
            let made = directory.appendingPathComponent("made")
            _ = try DiskCacheStore(directory: made, limit: 1 << 20)
            let mode = try FileManager.default.attributesOfItem(atPath: made.path)[.posixPermissions] as? Int
            #expect(mode == 0o700)
            let shared = directory.appendingPathComponent("shared")
            try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
            #expect(chmod(shared.path, 0o777) == 0)
            do throws(CurlewError) {
                _ = try DiskCacheStore(directory: shared, limit: 1 << 20)
                Issue.record("a world-writable cache directory was accepted")
            } catch {
                #expect(error.kind == .fileSystem && error.message.contains("writable by other users"))
            }
            #expect(chmod(shared.path, 0o755) == 0)
            _ = try DiskCacheStore(directory: shared, limit: 1 << 20)
        }
    }

    /// A body that cannot fit is refused before anything is written: no file is even created
    /// (watched with inotify), so a hostile server's huge response does not fill the disk on its
    /// way to being dropped. A body that fits creates its file (the watch works).
    @Test func aBodyLargerThanTheLimitIsRefusedBeforeAnythingIsWritten() async throws {
        try await Self.withDirectory { directory in
            let store = try DiskCacheStore(directory: directory, limit: 4096)
            let watch = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            #expect(watch >= 0)
            defer { close(watch) }
            #expect(inotify_add_watch(watch, directory.path, UInt32(IN_CREATE)) >= 0)
            func created() -> Bool {
                var buffer = [UInt8](repeating: 0, count: 4096)
                return buffer.withUnsafeMutableBytes { read(watch, $0.baseAddress, $0.count) } > 0
            }
            #expect(!store.store(Self.head("huge"), body: .memory(Data(count: 8192))))
            let file = directory.deletingLastPathComponent().appendingPathComponent("curlew-huge-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: file) }
            #expect(FileManager.default.createFile(atPath: file.path, contents: Data(count: 8192)))
            #expect(!store.store(Self.head("huge-download"), body: .file(path: file.path, offset: 0)))
            #expect(!created() && store.entryCount == 0)
            #expect(store.store(Self.head("small"), body: .memory(Data(count: 100))))
            #expect(created())
        }
    }

    /// Files of the first format are dropped when the store opens: they may hold responses to
    /// requests with credentials under a shared key, and raw `Vary` values.
    @Test func entriesOfTheFirstFormatAreDropped() async throws {
        try await Self.withDirectory { directory in
            let store = try DiskCacheStore(directory: directory, limit: 1 << 20)
            store.store(Self.head("old"), body: .memory(Data(count: 100)))
            let file = try #require(Self.entryFiles(directory).first)
            var bytes = try Data(contentsOf: file)
            bytes.replaceSubrange(0..<8, with: Array("CWCACHE1".utf8))
            try bytes.write(to: file)
            let reopened = try DiskCacheStore(directory: directory, limit: 1 << 20)
            #expect(reopened.entryCount == 0 && Self.entryFiles(directory).isEmpty)
        }
    }

    /// Concurrent writers of one key: each writes its own file and renames it into place, so
    /// exactly one whole entry is left, whichever won, and no file is left behind.
    @Test func concurrentWritersOfOneKeyLeaveOneWholeEntry() async throws {
        try await Self.withDirectory { directory in
            let store = try DiskCacheStore(directory: directory, limit: 1 << 20)
            await withTaskGroup(of: Void.self) { group in
                for writer in 0..<32 {
                    group.addTask { store.store(Self.head("shared"), body: .memory(Data(repeating: UInt8(writer), count: 1000))) }
                }
            }
            let entry = try #require(store.entry(forKey: "shared"))
            let body = try CachedBodyReader.data(of: entry)
            #expect(body.count == 1000 && Set(body).count == 1)
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(store.entryCount == 1 && files.count == 1 && files[0].hasSuffix(".entry"))
            let size = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(files[0]).path)[.size] as? Int
            #expect(store.byteCount == size)
        }
    }

    /// Entries are found by their whole key (file names are random, the index compares keys),
    /// not by a hash that two URLs could share: many keys one character apart keep their own
    /// bodies, also after a restart.
    @Test func entriesAreFoundByTheirWholeKey() async throws {
        try await Self.withDirectory { directory in
            let store = try DiskCacheStore(directory: directory, limit: 1 << 22)
            let keys = (0..<200).map { "http://a.test/x?id=\($0)" } + ["http://a.test/x?id=1 ", "http://a.test/X?id=1"]
            for (number, key) in keys.enumerated() {
                store.store(Self.head(key), body: .memory(Data("\(number)".utf8)))
            }
            let reopened = try DiskCacheStore(directory: directory, limit: 1 << 22)
            for (number, key) in keys.enumerated() {
                let entry = try #require(reopened.entry(forKey: key))
                #expect(try CachedBodyReader.data(of: entry) == Data("\(number)".utf8))
            }
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
