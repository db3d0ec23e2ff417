import Curlew
import Foundation
import Testing
import TestServer

#if canImport(Glibc)
import Glibc
#endif

/// What the resumed-download tests share: a folder of their own, its listing, a download
/// interrupted on purpose for its resume data, and resume data edited as stored JSON would be.
enum ResumeFiles {
    /// A new, empty folder in the temporary directory; the caller removes it.
    static func temporaryDirectory(_ prefix: String = "curlew-resume") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The names in `directory`, sorted.
    static func contents(of directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    /// A download of `path` that fails after the server drops the connection, and its resume data.
    static func interrupted(
        _ server: TestServer, _ path: String, to destination: URL, session: Session = Fixtures.session
    ) async throws -> DownloadResumeData {
        try await interrupted(session.download(server.url(path), to: .file(destination)), to: destination)
    }

    /// `download`, which fails after the server drops the connection, and its resume data.
    static func interrupted(_ download: DownloadRequest, to destination: URL) async throws -> DownloadResumeData {
        let error = await #expect(throws: CurlewError.self) {
            _ = try await download.fileURL()
        }
        #expect(error?.kind == .connectionClosedMidBody, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: destination.path), "nothing at the destination")
        return try #require(error?.downloadResumeData, "a dropped download with an ETag gives resume data")
    }

    /// The resume data with some of its JSON fields replaced (a changed resource, a forged size).
    static func edited(_ data: DownloadResumeData, _ changes: [String: Any]) throws -> DownloadResumeData {
        var object = try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(data)) as? [String: Any])
        for (key, value) in changes { object[key] = value }
        return try JSONDecoder().decode(DownloadResumeData.self, from: JSONSerialization.data(withJSONObject: object))
    }

    /// The resume data aimed at another URL of the test server (the same resource, answered
    /// otherwise).
    static func retargeted(_ data: DownloadResumeData, to url: URL) throws -> DownloadResumeData {
        try edited(data, ["url": url.absoluteString])
    }

    /// The error a download fails with; records an issue when it succeeds.
    static func failure(of download: DownloadRequest) async -> CurlewError? {
        await #expect(throws: CurlewError.self) { _ = try await download.fileURL() }
    }

    /// The file's permission bits and link count, without following a link.
    static func status(of url: URL) throws -> (mode: mode_t, links: UInt) {
        var info = stat()
        guard lstat(url.path, &info) == 0 else { throw TestServerError("cannot lstat \(url.path)") }
        return (info.st_mode & 0o7777, UInt(info.st_nlink))
    }
}
