import Curlew
import Foundation

/// `--har FILE`: records the run's exchanges (each redirect hop an entry, secrets redacted as
/// Curlew prints them, no bodies) and appends them to the HAR file, which it creates (0600)
/// when missing.
enum HARAppender {
    /// The recorder the run's session reports to.
    static let recorder = HARRecorder(creator: HARCreator(name: "curlew", version: CurlewCommand.version))

    /// Appends what was recorded to `path`; a file that is not HAR is left alone and reported.
    static func append(to path: String) throws(CurlewError) {
        let url = URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
        var archive = recorder.archive()
        if FileManager.default.fileExists(atPath: url.path) {
            var existing = try HARArchive(contentsOf: url)
            existing.log.entries += archive.log.entries
            archive = existing
        }
        try archive.write(to: url)
    }
}
