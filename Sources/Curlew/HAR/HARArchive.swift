import Foundation

/// An HTTP Archive (HAR 1.2): the JSON file browsers' developer tools export and import, as
/// ``HARRecorder`` writes it and as replay reads it.
///
/// The file is one object, `{"log": {…}}`; ``log`` holds the entries. Fields the spec marks
/// optional are optionals here, and custom fields start with an underscore (Curlew writes
/// `_error` on the entry of a failed request; see ``HAREntry/error``). Fields this model does
/// not know are ignored when a file is read.
public struct HARArchive: Codable, Sendable, Hashable {
    /// The archive's contents.
    public var log: HARLog

    /// An archive of `log`.
    public init(log: HARLog) {
        self.log = log
    }
}
