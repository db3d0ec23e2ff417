import CPSL
import Foundation

/// libpsl's list data, loaded once and only read afterwards.
final class PublicSuffixList: @unchecked Sendable {
    // Safe: the context is never changed after loading, and libpsl's lookups are thread-safe
    // (they only read it); the process-wide instance is never freed.
    private let context: OpaquePointer

    private init(context: OpaquePointer) {
        self.context = context
    }

    /// The newest data libpsl has: the distribution's list file when it is newer than the
    /// compiled-in list, else the compiled-in list; nil when there is neither.
    static func newest() -> PublicSuffixList? {
        psl_latest(nil).map(PublicSuffixList.init(context:))
    }

    /// Whether `domain` (lowercase, no leading dot) is a public suffix, ICANN or private, with
    /// the default rule that an unlisted top-level name is one.
    func isPublicSuffix(_ domain: String) -> Bool {
        psl_is_public_suffix2(context, domain, Int32(PSL_TYPE_ANY)) != 0
    }

    /// Which libpsl, and the dates of its data.
    var summary: String {
        let builtIn = Date(timeIntervalSince1970: TimeInterval(psl_builtin_file_time()))
        let distribution = psl_dist_filename().map { String(cString: $0) } ?? ""
        let fileDate = (try? FileManager.default.attributesOfItem(atPath: distribution))?[.modificationDate] as? Date
        return "libpsl \(String(cString: psl_get_version())): compiled-in list of \(builtIn)"
            + (distribution.isEmpty ? "" : ", distribution file \(distribution) of \(fileDate.map { "\($0)" } ?? "unknown date")")
    }
}
