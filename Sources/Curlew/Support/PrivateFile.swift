import CCurlShims
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading and writing a file that holds secrets (a cookie file, a HAR file) and may sit in a
/// folder others can write to.
///
/// - Writing: a new file created with `O_EXCL` and mode 0600 from the start (never readable by
///   others, not even for a moment), filled, flushed to disk, then renamed over the path: a
///   reader sees the old file or the new one, never a torn one, and a link at the path is
///   replaced, not followed.
/// - Reading: a regular file owned by this user, of at most ``maximumSize`` bytes. A FIFO
///   does not block (it is opened `O_NONBLOCK` and refused), a device such as `/dev/zero`
///   is refused before a byte is read, and a file another user put there is not trusted.
///
/// `what` names the file in errors, such as "the cookie file".
enum PrivateFile {
    /// The largest cookie file read: far more than a full jar (3000 cookies of at most 4 KiB
    /// plus attributes of at most 1 KiB each) takes.
    static let maximumCookieFileSize = 64 << 20

    /// Writes `data` to `url` atomically, readable and writable by the owner only.
    static func save(_ data: Data, to url: URL, what: String) throws(CurlewError) {
        let directory = url.deletingLastPathComponent()
        var template = Array(directory.appendingPathComponent(".\(url.lastPathComponent).XXXXXX").path.utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { curlew_mkstemp_cloexec($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw CurlewError(
                .fileSystem, "could not create \(what) in \(directory.path): \(String(cString: strerror(errno)))", url: url)
        }
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var written = false
        defer {
            if !written { unlink(temporary) }
        }
        do throws(CurlewError) {
            try withBytes(of: data) { (bytes) throws(CurlewError) in
                try DescriptorWriter.writeAll(descriptor, bytes, what: what)
            }
        } catch {
            close(descriptor)
            throw CurlewError(.fileSystem, error.message, url: url)
        }
        let synced = fsync(descriptor) == 0
        let syncError = errno
        close(descriptor)
        guard synced else {
            throw CurlewError(.fileSystem, "could not flush \(what): \(String(cString: strerror(syncError)))", url: url)
        }
        guard rename(temporary, url.path) == 0 else {
            throw CurlewError(
                .fileSystem, "could not move \(what) into place: \(String(cString: strerror(errno)))", url: url)
        }
        written = true
    }

    /// The bytes of the file at `url`, of at most `maximumSize` bytes, or nil when there is none.
    static func contents(of url: URL, what: String, maximumSize: Int) throws(CurlewError) -> Data? {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            let reason = errno == ENXIO ? "it is not a regular file" : String(cString: strerror(errno))
            throw CurlewError(.fileSystem, "could not read \(what): \(reason)", url: url)
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw CurlewError(.fileSystem, "could not read \(what): \(String(cString: strerror(errno)))", url: url)
        }
        if let problem = unusable(info, maximumSize: maximumSize) {
            throw CurlewError(.fileSystem, "\(what) is not used: \(problem)", url: url)
        }
        var data = Data(count: Int(info.st_size))
        var filled = 0
        while filled < data.count {
            let count = data.withUnsafeMutableBytes { bytes in
                read(descriptor, bytes.baseAddress! + filled, bytes.count - filled)
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                let reason = count == 0 ? "it became shorter while it was read" : String(cString: strerror(errno))
                throw CurlewError(.fileSystem, "could not read \(what): \(reason)", url: url)
            }
            filled += count
        }
        return data
    }

    /// Why a file with these attributes is not read, or nil.
    private static func unusable(_ info: stat, maximumSize: Int) -> String? {
        if info.st_mode & S_IFMT != S_IFREG { return "it is not a regular file" }
        if info.st_uid != geteuid() { return "it is owned by another user" }
        if info.st_size > off_t(maximumSize) { return "it holds \(info.st_size) bytes, more than \(maximumSize)" }
        return nil
    }
}
