import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A downloaded file waiting, under its temporary name beside the destination, for the
/// response to pass the interceptors and validations: then ``commit()`` moves it into place;
/// otherwise ``discard()`` removes it. A pending download dropped undecided removes its file,
/// so no path leaves a temporary file behind.
final class PendingDownload: Sendable {
    let temporaryPath: String
    /// Where the file goes on success.
    let destination: URL
    private let options: DownloadOptions
    private let settled = Atomic<Bool>(false)

    init(temporaryPath: String, destination: URL, options: DownloadOptions) {
        self.temporaryPath = temporaryPath
        self.destination = destination
        self.options = options
    }

    /// Moves the file into place and returns its URL; on failure the temporary file is removed.
    /// Only the first call of ``commit()`` or ``discard()`` acts.
    ///
    /// With ``DownloadOptions/removePreviousFile``, `rename` replaces whatever is at the
    /// destination atomically — a link is replaced itself, never followed. Without it, `link`
    /// gives the file its name only if nothing has it, atomically, so a file that appeared
    /// meanwhile (another download's, a link to nowhere) is never replaced; the temporary name
    /// is then removed. A file system without hard links gets a check and a `rename`.
    func commit() throws(CurlewError) -> URL {
        guard settle() else { return destination }
        let path = destination.path
        if options.contains(.removePreviousFile) {
            try move(over: path)
            return destination
        }
        if link(temporaryPath, path) == 0 {
            unlink(temporaryPath)
            return destination
        }
        let failure = errno
        guard failure != EEXIST else {
            unlink(temporaryPath)
            throw CurlewError(.fileSystem, "a file appeared at \(path) during the download", underlying: POSIXError(.EEXIST))
        }
        guard [EPERM, EOPNOTSUPP, ENOSYS, EMLINK].contains(failure) else {
            unlink(temporaryPath)
            throw .fileSystem("cannot move the download to \(path)", code: failure)
        }
        if DownloadFile.hasEntry(at: path) {
            unlink(temporaryPath)
            throw CurlewError(.fileSystem, "a file appeared at \(path) during the download", underlying: POSIXError(.EEXIST))
        }
        try move(over: path)
        return destination
    }

    /// Renames the temporary file to `path`, replacing what is there; removes it on failure.
    private func move(over path: String) throws(CurlewError) {
        guard rename(temporaryPath, path) == 0 else {
            let failure = errno
            unlink(temporaryPath)
            throw .fileSystem("cannot move the download to \(path)", code: failure)
        }
    }

    /// Removes the temporary file; the destination is never touched.
    func discard() {
        if settle() { unlink(temporaryPath) }
    }

    /// True for the first caller only.
    private func settle() -> Bool {
        !settled.exchange(true, ordering: .acquiringAndReleasing)
    }

    deinit {
        if !settled.load(ordering: .acquiring) { unlink(temporaryPath) }
    }
}
