import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps responses in a directory, one file per entry, up to a byte limit; the least recently
/// used go first. The index (every head) is kept in memory and rebuilt from the directory when
/// the store opens, so the cache survives a restart.
///
/// An entry's file is `magic (8) · head length (4) · head checksum (8) · head (JSON) · body`,
/// written under a temporary name and renamed into place, so a reader never sees half a file.
/// A torn, truncated or altered file is dropped: the head is checked when the index is built,
/// the body's length and checksum each time it is read. Every write gets a new file name, so a
/// reader that opened the previous version keeps reading a consistent file.
///
/// The checksums catch damage, not attacks: whoever can write in the directory decides what is
/// served. So the directory is created private (0700), and one that another user owns or may
/// write in is refused; a name that is not a regular file (a symlink) is never read.
final class DiskCacheStore: HTTPCacheStore {
    struct Item: Sendable {
        var head: CacheEntryHead
        var path: String
        var bodyOffset: Int
    }

    /// Version 2: `Vary` values are digests, and keys hold no user information (version 1 files
    /// are dropped, since they may hold responses to credentialed requests under a shared key).
    static let magic = Array("CWCACHE2".utf8)
    static let prefixLength = 20
    let directory: URL
    let limit: Int
    private let index = Mutex(LRUIndex<Item>())

    init(directory: URL, limit: Int) throws(CurlewError) {
        self.directory = directory
        self.limit = max(0, limit)
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CurlewError(.fileSystem, "cannot create the cache directory \(directory.path): \(error.localizedDescription)")
        }
        try Self.checkPrivate(directory)
        rebuildIndex()
    }

    /// Refuses a directory that another user owns or that others may write in: they could
    /// plant entries (the checksums are no signature) and have them served.
    static func checkPrivate(_ directory: URL) throws(CurlewError) {
        var info = stat()
        guard stat(directory.path, &info) == 0 else {
            throw CurlewError(.fileSystem, "cannot read the cache directory \(directory.path): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw CurlewError(.fileSystem, "the cache directory \(directory.path) is not a directory")
        }
        if info.st_uid != geteuid() {
            throw CurlewError(
                .fileSystem,
                "the cache directory \(directory.path) belongs to another user (uid \(info.st_uid)), who could plant responses in it")
        }
        if info.st_mode & (S_IWGRP | S_IWOTH) != 0 {
            throw CurlewError(
                .fileSystem,
                "the cache directory \(directory.path) is writable by other users (mode \(String(info.st_mode & 0o777, radix: 8))), who could plant responses in it; make it 0700")
        }
    }

    // MARK: HTTPCacheStore

    func entry(forKey key: String) -> CacheEntry? {
        guard let item = index.withLock({ $0.get(key) }) else { return nil }
        return CacheEntry(head: item.head, body: .file(path: item.path, offset: item.bodyOffset))
    }

    @discardableResult
    func store(_ head: CacheEntryHead, body: CachedBody) -> Bool {
        // A body that cannot fit is refused before a byte is copied: a hostile server's huge
        // download must not fill the disk a second time on its way to being dropped.
        guard Self.prefixLength + Self.declaredLength(of: body, head: head) <= limit else {
            remove(forKey: head.key)
            return false
        }
        guard let item = write(head, body: body) else { return false }
        let size = item.bodyOffset + item.head.bodyLength
        guard size <= limit else {
            unlink(item.path)
            remove(forKey: head.key)
            return false
        }
        let dropped = index.withLock { index -> [Item] in
            var dropped = index.evict(toFit: limit - size)
            if let old = index.insert(item, size: size, forKey: head.key) { dropped.append(old) }
            return dropped
        }
        for old in dropped { unlink(old.path) }
        return true
    }

    func remove(forKey key: String) {
        if let item = index.withLock({ $0.remove(key) }) { unlink(item.path) }
    }

    func removeAll() {
        for item in index.withLock({ $0.removeAll() }) { unlink(item.path) }
    }

    var byteCount: Int { index.withLock { $0.byteCount } }
    var entryCount: Int { index.withLock { $0.slots.count } }

    /// Drops an entry whose body turned out damaged, unless it was replaced meanwhile.
    func drop(_ entry: CacheEntry) {
        guard case .file(let path, _) = entry.body else { return }
        let removed = index.withLock { index -> Item? in
            guard index.slots[entry.head.key]?.item.path == path else { return nil }
            return index.remove(entry.head.key)
        }
        if let removed { unlink(removed.path) }
    }

    // MARK: Files

    /// The body's length as far as it is known before reading it.
    private static func declaredLength(of body: CachedBody, head: CacheEntryHead) -> Int {
        switch body {
        case .memory(let data): return data.count
        case .file(let path, let offset):
            if head.bodyChecksum != 0 { return head.bodyLength }
            let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int ?? 0
            return max(0, size - offset)
        }
    }

    /// Writes an entry file; fills in the body's length and checksum (a nonzero checksum in
    /// `head` is checked instead, when the body is copied from another entry).
    private func write(_ head: CacheEntryHead, body: CachedBody) -> Item? {
        let temporary = directory.appendingPathComponent("tmp-\(UUID().uuidString)").path
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { return nil }
        var ok = false
        defer {
            close(descriptor)
            if !ok { unlink(temporary) }
        }
        var head = head
        // The body first, after room for the prefix and head: its checksum goes into the head.
        let (length, checksum): (Int, UInt64)
        do throws(CurlewError) {
            (length, checksum) = try measure(body, head: head)
        } catch {
            return nil
        }
        if head.bodyChecksum != 0, head.bodyChecksum != checksum || head.bodyLength != length { return nil }
        head.bodyLength = length
        head.bodyChecksum = checksum
        guard let json = try? JSONEncoder().encode(head) else { return nil }
        var prefix = Self.magic
        withUnsafeBytes(of: UInt32(json.count).littleEndian) { prefix.append(contentsOf: $0) }
        withUnsafeBytes(of: FNV1a.of(json).littleEndian) { prefix.append(contentsOf: $0) }
        let writer = { (bytes: UnsafeRawBufferPointer) throws(CurlewError) in
            try DescriptorWriter.writeAll(descriptor, bytes, what: "a cache entry")
        }
        do throws(CurlewError) {
            try withBytes(of: prefix, writer)
            try withBytes(of: json, writer)
            try CachedBodyReader.forEachChunk(of: CacheEntry(head: head, body: body), writer)
        } catch {
            return nil
        }
        let path = directory.appendingPathComponent("\(UUID().uuidString).entry").path
        guard rename(temporary, path) == 0 else { return nil }
        ok = true
        return Item(head: head, path: path, bodyOffset: Self.prefixLength + json.count)
    }

    /// The length and checksum of a body about to be written.
    private func measure(_ body: CachedBody, head: CacheEntryHead) throws(CurlewError) -> (Int, UInt64) {
        switch body {
        case .memory(let data): return (data.count, FNV1a.of(data))
        case .file(let path, let offset):
            var hash = FNV1a()
            var length = 0
            var probe = head
            probe.bodyChecksum = 0
            if head.bodyChecksum == 0 {
                // A plain file (a finished download): its whole length from the offset.
                let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int ?? 0
                probe.bodyLength = max(0, size - offset)
            }
            let unchecked = CacheEntry(head: probe, body: .file(path: path, offset: offset))
            do throws(CurlewError) {
                try CachedBodyReader.forEachChunk(of: unchecked) { (bytes: UnsafeRawBufferPointer) throws(CurlewError) in
                    hash.update(bytes)
                    length += bytes.count
                }
            } catch {
                // Only the checksum differs (it was left 0): the bytes were all read.
                guard length == probe.bodyLength else { throw error }
            }
            return (length, hash.value)
        }
    }

    /// Reads every entry file's head; removes temporary files and files that do not check out.
    private func rebuildIndex() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        var found: [(item: Item, size: Int, modified: Date)] = []
        for name in names {
            let path = directory.appendingPathComponent(name).path
            if name.hasPrefix("tmp-") {
                unlink(path)
                continue
            }
            guard name.hasSuffix(".entry") else { continue }
            // Attributes of the name itself (not a symlink's target): only regular files are read.
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)
            guard attributes?[.type] as? FileAttributeType == .typeRegular, let size = attributes?[.size] as? Int,
                let item = Self.readItem(path: path, fileSize: size)
            else {
                unlink(path)
                continue
            }
            found.append((item, size, attributes?[.modificationDate] as? Date ?? .distantPast))
        }
        found.sort { $0.modified < $1.modified }
        let dropped = index.withLock { index -> [Item] in
            var dropped: [Item] = []
            for entry in found {
                if let old = index.insert(entry.item, size: entry.size, forKey: entry.item.head.key) { dropped.append(old) }
            }
            return dropped + index.evict(toFit: limit)
        }
        for item in dropped { unlink(item.path) }
    }

    /// The head of an entry file, or nil when its prefix, head or length is wrong.
    static func readItem(path: String, fileSize: Int) -> Item? {
        guard fileSize >= prefixLength, let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let prefix = try? handle.read(upToCount: prefixLength), prefix.count == prefixLength,
            Array(prefix.prefix(8)) == magic
        else { return nil }
        let headLength = prefix[8..<12].reversed().reduce(0) { $0 << 8 | Int($1) }
        let headChecksum = prefix[12..<20].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard headLength > 0, headLength <= 1 << 20, prefixLength + headLength <= fileSize,
            let json = try? handle.read(upToCount: headLength), json.count == headLength,
            FNV1a.of(json) == headChecksum,
            let head = try? JSONDecoder().decode(CacheEntryHead.self, from: json),
            prefixLength + headLength + head.bodyLength == fileSize
        else { return nil }
        return Item(head: head, path: path, bodyOffset: prefixLength + headLength)
    }
}
