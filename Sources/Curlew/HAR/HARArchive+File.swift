import Foundation

extension HARArchive {
    /// The largest HAR file ``init(contentsOf:maximumSize:)`` reads by default: 256 MiB.
    public static let defaultMaximumFileSize = 256 << 20

    /// Reads a HAR file's JSON.
    ///
    /// Throws ``CurlewError/Kind/serializationFailed`` with the path of the offending field
    /// (`log.entries[3].request.url: missing`) when the text is not JSON or not a HAR log, and
    /// when `log.version` is not a 1.x version.
    public init(data: Data) throws(CurlewError) {
        let archive: HARArchive
        do {
            archive = try JSONDecoder().decode(HARArchive.self, from: data)
        } catch let error as DecodingError {
            throw CurlewError(.serializationFailed, "not a HAR file: \(Self.describe(error))", underlying: error)
        } catch {
            throw CurlewError(.serializationFailed, "not a HAR file: \(error)")
        }
        guard archive.log.version.hasPrefix("1.") || archive.log.version.isEmpty else {
            throw CurlewError(
                .serializationFailed,
                "not a HAR file Curlew reads: log.version is '\(archive.log.version.prefix(32))', not 1.x")
        }
        self = archive
    }

    /// Reads the HAR file at `url`: a regular file owned by this user, of at most
    /// `maximumSize` bytes (a FIFO or a device is refused without blocking).
    ///
    /// Throws ``CurlewError/Kind/fileSystem`` when the file is missing or cannot be used, and
    /// ``CurlewError/Kind/serializationFailed`` when it is not a HAR log (see ``init(data:)``).
    public init(contentsOf url: URL, maximumSize: Int = HARArchive.defaultMaximumFileSize) throws(CurlewError) {
        guard let data = try PrivateFile.contents(of: url, what: "the HAR file", maximumSize: maximumSize) else {
            throw CurlewError(.fileSystem, "there is no HAR file at \(url.path)", url: url)
        }
        do throws(CurlewError) {
            try self.init(data: data)
        } catch {
            throw CurlewError(error.kind, error.message, url: url, underlying: error.underlying)
        }
    }

    /// The archive as HAR JSON (pretty-printed, keys sorted).
    public func jsonData() throws(CurlewError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(self)
        } catch {
            throw CurlewError(.serializationFailed, "could not encode the HAR archive: \(error)")
        }
    }

    /// Writes the archive to `url` atomically, readable and writable by the owner only: a new
    /// file created with `O_EXCL` and mode 0600, flushed, then renamed over the path (a link
    /// there is replaced, not followed).
    public func write(to url: URL) throws(CurlewError) {
        try PrivateFile.save(try jsonData(), to: url, what: "the HAR file")
    }

    /// A `DecodingError` as one line: where, and what was wrong.
    static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            let text = keys.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
            return text.hasPrefix(".") ? String(text.dropFirst()) : (text.isEmpty ? "(top level)" : text)
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])): missing"
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)): expected \(type)"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)): expected \(type), found null"
        case .dataCorrupted(let context):
            let reason = context.codingPath.isEmpty ? "the text is not valid JSON" : context.debugDescription
            return "\(path(context.codingPath)): \(reason)"
        @unknown default:
            return "\(error)"
        }
    }
}
