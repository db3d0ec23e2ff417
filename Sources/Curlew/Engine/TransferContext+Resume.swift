import Foundation
import HTTPTypes

/// Downloads that can be resumed: where a download's body goes, given its response and any
/// resume data, and which failures keep the partial file.
extension TransferContext {
    /// Opens the file for a download's body and returns the head to deliver.
    ///
    /// Without resume data, a new temporary file beside the destination, noting the validator
    /// in case the transfer fails part way. With it, once the partial file proves to be the one
    /// Curlew derives from `target` (``DownloadResumeData/partialFilePath(for:)``): a `206`
    /// with the same strong validator whose `Content-Range` continues the partial file appends
    /// to it, up to the range's end; a `200` (the range was ignored, or the resource changed)
    /// starts it again from empty; a `416` that says the file is whole finishes it, delivered as
    /// a `200`; any other status gets a new file and leaves the partial file alone.
    func openDownloadFile(
        head: HTTPResponse, target: URL, options: DownloadOptions, resume: DownloadResumeData?
    ) throws(CurlewError) -> HTTPResponse {
        let status = head.status.code
        guard let resume, status == 200 || status == 206 || status == 416 else {
            let file = try DownloadFile(destination: target, options: options)
            if status == 200 { noteValidator(of: head, in: file) }
            downloadFile = file
            return head
        }
        let path = try resume.partialFilePath(for: target)
        switch status {
        case 206:
            return try continuePartialFile(at: path, with: head, resume: resume, target: target, options: options)
        case 200:
            let file = try DownloadFile(
                resuming: path, holding: resume.bytesOnDisk, restarting: true, destination: target, options: options)
            noteValidator(of: head, in: file)
            downloadFile = file
            return head
        default:
            return try finishPartialFile(at: path, with: head, resume: resume, target: target, options: options)
        }
    }

    /// A `206` to a resumed download: appended to the partial file only if it carries the
    /// partial file's strong validator and its range starts at the file's end and has the
    /// first response's total; the file may then grow to the range's end and no further.
    private func continuePartialFile(
        at path: String, with head: HTTPResponse, resume: DownloadResumeData, target: URL, options: DownloadOptions
    ) throws(CurlewError) -> HTTPResponse {
        let fields = head.headerFields
        guard ResumeValidator.matches(fields, stored: resume.validator) else {
            throw changedRepresentation(resume, found: ResumeValidator.described(fields), status: 206)
        }
        let range = ContentRange(fields[.contentRange])
        guard let range, let start = range.start, let end = range.end, start == resume.bytesOnDisk else {
            throw CurlewError(
                .resumeFailed,
                "the server answered the resumed download with Content-Range '\(fields[.contentRange] ?? "")', which does not start at byte \(resume.bytesOnDisk)"
            ).with(downloadResumeData: resume)
        }
        if let total = range.total, let expected = resume.totalBytes, total != expected {
            throw CurlewError(
                .resumeFailed,
                "the server answered the resumed download with a total of \(total) bytes, but the first response had \(expected)"
            ).with(downloadResumeData: resume)
        }
        if decoder != nil {
            throw CurlewError(.resumeFailed, "the server answered the resumed download with a content-coded range")
                .with(downloadResumeData: resume)
        }
        let file = try DownloadFile(
            resuming: path, holding: resume.bytesOnDisk, restarting: false, destination: target, options: options)
        file.validator = resume.validator
        file.totalBytes = range.total ?? resume.totalBytes
        file.byteLimit = end + 1
        file.expectedLength = file.totalBytes ?? end + 1
        progressOffset = resume.bytesOnDisk
        downloadFile = file
        return head
    }

    /// A `416` to a resumed download: the partial file is whole only if the `416`'s total is
    /// what the file holds and what the first response said, and the `416` names no other
    /// validator.
    private func finishPartialFile(
        at path: String, with head: HTTPResponse, resume: DownloadResumeData, target: URL, options: DownloadOptions
    ) throws(CurlewError) -> HTTPResponse {
        let fields = head.headerFields
        if ResumeValidator.contradicts(fields, stored: resume.validator) {
            throw changedRepresentation(resume, found: ResumeValidator.described(fields), status: 416)
        }
        let shown = ContentRange(fields[.contentRange])?.total
        let total = shown ?? resume.totalBytes
        guard let total, total == resume.bytesOnDisk, resume.totalBytes.map({ $0 == total }) ?? true else {
            let first = resume.totalBytes.map { ", and the first response had \($0)" } ?? ""
            throw CurlewError(
                .resumeFailed,
                "the server refused the range from byte \(resume.bytesOnDisk) (416) with a total of \(shown.map(String.init) ?? "unknown") bytes\(first): the partial file is not known to be whole"
            ).with(downloadResumeData: resume)
        }
        let file = try DownloadFile(
            resuming: path, holding: resume.bytesOnDisk, restarting: false, destination: target, options: options)
        file.ignoresBody = true
        progressOffset = total
        downloadFile = file
        var whole = HTTPResponse(status: .ok, headerFields: fields)
        whole.headerFields[.contentRange] = nil
        whole.headerFields[.contentLength] = String(total)
        return whole
    }

    /// The server answered a resumed download about another representation than the partial
    /// file's: nothing in the file can be combined with it, so the file is removed (see
    /// ARCHITECTURE.md, "Resumed downloads").
    private func changedRepresentation(_ resume: DownloadResumeData, found: String, status: Int) -> CurlewError {
        resume.discardPartialFile()
        return CurlewError(
            .resumeFailed,
            "the server answered the resumed download (\(status)) with the validator \(found), not the partial file's '\(resume.validator)': the resource changed or the server ignored If-Range, so the partial file was removed; download it again")
    }

    /// Notes what a `200`'s body can be resumed with: its strong validator and length, unless
    /// it is content-coded (the bytes on disk are then not the bytes a range counts).
    private func noteValidator(of head: HTTPResponse, in file: DownloadFile) {
        guard decoder == nil else { return }
        file.validator = ResumeValidator.of(head.headerFields)
        file.totalBytes = head.headerFields[.contentLength].flatMap { Int64($0) }
    }

    /// At a download's end, when libcurl found the transfer complete: a resumed file must have
    /// the representation's length (``DownloadFile/checkLength()``).
    func checkDownloadLength() {
        guard let downloadFile else { return }
        do throws(CurlewError) { try downloadFile.checkLength() } catch { record(error) }
    }

    /// Resume data for a download that failed: after a transport failure (not a callback's
    /// refusal), or after a resumed range that ended otherwise than it said (its partial file
    /// without anything past the range). Otherwise none; the file is then removed.
    func resumeDataAfterFailure() -> DownloadResumeData? {
        guard let downloadFile, failure == nil || downloadFile.rangeEndedWrongly else { return nil }
        return downloadFile.keepForResuming(request: request)
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
