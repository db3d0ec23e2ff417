import Foundation
import HTTPTypes

/// Downloads that can be resumed: where a download's body goes, given its response and any
/// resume data, and which failures keep the partial file.
extension TransferContext {
    /// Opens the file for a download's body and returns the head to deliver.
    ///
    /// Without resume data, a new temporary file beside the destination, noting the validator
    /// in case the transfer fails part way. With it: a `206` whose `Content-Range` continues the
    /// partial file appends to it; a `200` (the range was ignored, or the resource changed)
    /// starts it again from empty; a `416` that says the file is whole finishes it, delivered as
    /// a `200`; any other status gets a new file and leaves the partial file alone.
    func openDownloadFile(
        head: HTTPResponse, target: URL, options: DownloadOptions, resume: DownloadResumeData?
    ) throws(CurlewError) -> HTTPResponse {
        let path = resume?.partialFileURL.path
        switch (head.status.code, resume, path) {
        case (206, let resume?, let path?):
            let range = ContentRange(head.headerFields[.contentRange])
            guard let range, let start = range.start, start == resume.bytesOnDisk else {
                throw CurlewError(
                    .resumeFailed,
                    "the server answered the resumed download with Content-Range '\(head.headerFields[.contentRange] ?? "")', which does not start at byte \(resume.bytesOnDisk)")
            }
            if let total = range.total, let expected = resume.totalBytes, total != expected {
                throw CurlewError(
                    .resumeFailed,
                    "the server answered the resumed download with a total of \(total) bytes, but the first response had \(expected)")
            }
            if decoder != nil {
                throw CurlewError(.resumeFailed, "the server answered the resumed download with a content-coded range")
            }
            let file = try DownloadFile(resuming: path, at: resume.bytesOnDisk, destination: target, options: options)
            file.validator = resume.validator
            file.totalBytes = range.total ?? resume.totalBytes
            progressOffset = resume.bytesOnDisk
            downloadFile = file
            return head
        case (200, _?, let path?):
            let file = try DownloadFile(resuming: path, at: 0, destination: target, options: options)
            noteValidator(of: head, in: file)
            downloadFile = file
            return head
        case (416, let resume?, let path?):
            let total = ContentRange(head.headerFields[.contentRange])?.total ?? resume.totalBytes
            guard let total, total == resume.bytesOnDisk else {
                throw CurlewError(
                    .resumeFailed,
                    "the server refused the range from byte \(resume.bytesOnDisk) (416), and its total of \(total.map(String.init) ?? "unknown") bytes is not what the partial file holds")
            }
            let file = try DownloadFile(resuming: path, at: resume.bytesOnDisk, destination: target, options: options)
            file.ignoresBody = true
            progressOffset = total
            downloadFile = file
            var whole = HTTPResponse(status: .ok, headerFields: head.headerFields)
            whole.headerFields[.contentRange] = nil
            whole.headerFields[.contentLength] = String(total)
            return whole
        default:
            let file = try DownloadFile(destination: target, options: options)
            if head.status.code == 200 { noteValidator(of: head, in: file) }
            downloadFile = file
            return head
        }
    }

    /// Notes what a `200`'s body can be resumed with: its validator and length, unless it is
    /// content-coded (the bytes on disk are then not the bytes a range counts).
    private func noteValidator(of head: HTTPResponse, in file: DownloadFile) {
        guard decoder == nil else { return }
        file.validator = head.headerFields[.eTag] ?? head.headerFields[.lastModified]
        file.totalBytes = head.headerFields[.contentLength].flatMap { Int64($0) }
    }

    /// Whether a transfer given up with `error` keeps its partial file for resume data: when
    /// the owner asked (``DownloadRequest/cancel(producingResumeData:)``) or the server went
    /// quiet, never for a plain cancel.
    func keepsPartialDownload(after error: CurlewError) -> Bool {
        error.keepsPartialDownload || error.kind == .idleTimeout || error.kind == .totalTimeout
            || error.kind == .tooSlow || error.kind == .sessionShutdown
    }

    /// A resumed download's first progress event, as its head arrives: the bytes it already
    /// had, of the whole. libcurl's own counts then follow, offset by as much.
    func emitResumedProgress(transfer: Transfer) {
        guard progressOffset > 0, let events = transfer.events else { return }
        let now = ContinuousClock.now
        lastDownloadEmit = now
        lastDownloadBytes = 0
        lastDownloadTotal = downloadFile?.totalBytes
        events.emit(.downloadProgress(progress(progressOffset, total: lastDownloadTotal, at: now)))
    }
}
