import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Writes files that hold secrets (session headers, OAuth2 tokens): readable by the owner only
/// from the moment they exist (mode 0600), replaced atomically (a reader sees the old file or
/// the new one), a link at the path replaced rather than followed.
enum PrivateFileWriter {
    static func write(_ data: Data, to url: URL) throws(CommandLineError) {
        let directory = url.deletingLastPathComponent().path
        let temporary = directory + "/.\(url.lastPathComponent).\(UUID().uuidString.prefix(8)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw CommandLineError("cannot write \(url.path): \(String(cString: strerror(errno)))")
        }
        var failure = Terminal.writeAll(data, to: descriptor)
        if failure == 0, fsync(descriptor) != 0 { failure = errno }
        close(descriptor)
        if failure == 0, rename(temporary, url.path) != 0 { failure = errno }
        if failure != 0 {
            unlink(temporary)
            throw CommandLineError("cannot write \(url.path): \(String(cString: strerror(failure)))")
        }
    }

    /// Makes `url` (and its parents) a directory; the last one is created with mode 0700.
    static func makeDirectory(_ url: URL) throws(CommandLineError) {
        do {
            try FileManager.default.createDirectory(
                at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CommandLineError("cannot create \(url.path): \(error.localizedDescription)")
        }
    }

    /// Whether anyone but the owner may read or write `path`.
    static func isShared(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return info.st_mode & 0o077 != 0
    }
}
