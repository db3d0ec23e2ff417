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

    /// Moves the file into place (atomically, by `rename`) and returns its URL; on failure the
    /// temporary file is removed. Only the first call of ``commit()`` or ``discard()`` acts.
    func commit() throws(CurlewError) -> URL {
        guard settle() else { return destination }
        if !options.contains(.removePreviousFile), FileManager.default.fileExists(atPath: destination.path) {
            unlink(temporaryPath)
            throw CurlewError(.fileSystem, "a file appeared at \(destination.path) during the download")
        }
        guard rename(temporaryPath, destination.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporaryPath)
            throw CurlewError(.fileSystem, "cannot move the download to \(destination.path): \(reason)")
        }
        return destination
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
