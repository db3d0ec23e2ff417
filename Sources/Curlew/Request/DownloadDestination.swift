import Foundation
import HTTPTypes

/// Where a download is written, and how the file system is treated on the way
/// (``DownloadOptions``).
///
/// ```swift
/// session.download(url, to: .file(report, options: [.createIntermediateDirectories, .removePreviousFile]))
/// ```
///
/// Without ``DownloadOptions/removePreviousFile``, a file (or link) already at the destination
/// fails the download with ``CurlewError/Kind/fileSystem`` and is left as it is.
public struct DownloadDestination: Sendable {
    enum Kind: Sendable {
        case file(URL)
        case directory(URL)
        case custom(@Sendable (_ suggestedFilename: String, _ head: HTTPResponse) -> URL)
        case temporary
    }

    let kind: Kind
    /// How the file system is treated on the way to the file.
    public let options: DownloadOptions

    /// Exactly this file.
    public static func file(_ url: URL, options: DownloadOptions = []) -> DownloadDestination {
        DownloadDestination(kind: .file(url), options: options)
    }

    /// This directory, under the suggested filename (from `Content-Disposition`, else the
    /// URL's last path component, else `download`).
    public static func directory(_ url: URL, options: DownloadOptions = []) -> DownloadDestination {
        DownloadDestination(kind: .directory(url), options: options)
    }

    /// A file chosen when the response head arrives. Runs on the session's I/O thread: keep it quick.
    public static func custom(
        options: DownloadOptions = [], _ choose: @escaping @Sendable (_ suggestedFilename: String, _ head: HTTPResponse) -> URL
    ) -> DownloadDestination {
        DownloadDestination(kind: .custom(choose), options: options)
    }

    /// A new file in the system's temporary directory (`FileManager.default.temporaryDirectory`),
    /// named `curlew-<UUID>-<suggested filename>`: the default of `Session.download`. The file
    /// belongs to the caller, who moves or removes it; Curlew never does.
    public static var temporaryFile: DownloadDestination { DownloadDestination(kind: .temporary, options: []) }

    /// The file for a response. A download resumed into ``temporaryFile`` continues the file
    /// its partial file was named for, when that is one of this kind's names for the response,
    /// since each resolution otherwise names a new one.
    func resolve(suggestedFilename: String, head: HTTPResponse, resuming resumeData: DownloadResumeData? = nil) -> URL {
        switch kind {
        case .file(let url): return url
        case .directory(let url): return url.appendingPathComponent(suggestedFilename)
        case .custom(let choose): return choose(suggestedFilename, head)
        case .temporary:
            let folder = FileManager.default.temporaryDirectory
            if let partial = resumeData?.partialFileURL.standardizedFileURL,
                partial.deletingLastPathComponent().path == folder.standardizedFileURL.path,
                let name = DownloadFile.destinationName(ofTemporaryFile: partial.lastPathComponent),
                Self.isTemporaryName(name, for: suggestedFilename)
            {
                return folder.appendingPathComponent(name)
            }
            return folder.appendingPathComponent("curlew-\(UUID().uuidString)-\(suggestedFilename)")
        }
    }

    /// Whether `name` is `curlew-<UUID>-<suggested filename>`.
    private static func isTemporaryName(_ name: String, for suggestedFilename: String) -> Bool {
        let prefix = "curlew-", suffix = "-" + suggestedFilename
        guard name.hasPrefix(prefix), name.hasSuffix(suffix), name.count == prefix.count + 36 + suffix.count else { return false }
        return UUID(uuidString: String(name.dropFirst(prefix.count).prefix(36))) != nil
    }
}

/// How a download treats the file system, given with its ``DownloadDestination``.
public struct DownloadOptions: OptionSet, Sendable {
    public let rawValue: Int
    /// Creates options.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Create missing directories on the way to the destination.
    public static let createIntermediateDirectories = DownloadOptions(rawValue: 1 << 0)
    /// Replace a file already at the destination (otherwise that is an error).
    public static let removePreviousFile = DownloadOptions(rawValue: 1 << 1)
}

enum SuggestedFilename {
    /// The filename from `Content-Disposition`, else the URL's last path component.
    static func from(head: HTTPResponse, url: URL) -> String {
        if let disposition = head.headerFields[.contentDisposition],
            let name = parse(disposition)
        {
            return sanitize(name)
        }
        let last = url.lastPathComponent
        return last.isEmpty || last == "/" ? "download" : sanitize(last)
    }

    private static func parse(_ disposition: String) -> String? {
        var plain: String?
        for part in disposition.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            switch pair[0].lowercased() {
            case "filename*":
                // RFC 6266 / 8187: charset'lang'percent-encoded
                let pieces = pair[1].split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
                if pieces.count == 3, let decoded = String(pieces[2]).removingPercentEncoding { return decoded }
            case "filename":
                plain = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            default: continue
            }
        }
        return plain
    }

    /// Keeps only a plain file name: no directories, no `..`, no control characters.
    private static func sanitize(_ name: String) -> String {
        let base = name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        let cleaned = String(base.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F })
        return cleaned.isEmpty || cleaned == "." || cleaned == ".." ? "download" : cleaned
    }
}
