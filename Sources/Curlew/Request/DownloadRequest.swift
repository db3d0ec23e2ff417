import Foundation
import HTTPTypes

/// A request whose body is written straight to a file as it arrives.
///
/// The body goes to a temporary file beside the destination, moved into place atomically once
/// the transfer succeeded and its response passed the interceptors and validations. A failed
/// download (a transport error, a rejected response, a cancel) leaves nothing at the
/// destination, and a file already there stays as it was.
///
/// Validation, interception, events, cancelling, suspending and the serializers come from
/// ``Request``; `data()`, `decode` and `serialized(by:)` read the finished file.
public final class DownloadRequest: Request, @unchecked Sendable {
    // Safe: it adds no stored property to ``Request``, whose proof holds.
    init(
        session: Session, build: Result<OutgoingRequest, CurlewError>, destination: DownloadDestination,
        options: DownloadOptions, resuming resumeData: DownloadResumeData? = nil
    ) {
        super.init(core: RequestCore(session: session, build: build, mode: .download(destination, options, resumeData)))
    }

    /// The response, whose value is the file's final location.
    public var response: Response<URL> {
        get async throws(CurlewError) {
            let completed = try await core.completed()
            let outcome = completed.outcome
            guard let file = outcome.fileURL else {
                throw CurlewError(.fileSystem, "the download produced no file", url: outcome.url, responseHead: outcome.head)
            }
            return Response(
                request: outcome.request, url: outcome.url, responseHead: outcome.responseHead, value: file,
                metrics: outcome.metrics, redirects: outcome.redirects, attempts: completed.attempts)
        }
    }

    /// The file's final location.
    public func fileURL() async throws(CurlewError) -> URL {
        try await response.value
    }

    /// The file's final location, or the error ``fileURL()`` would have thrown.
    public func fileURLResult() async -> Result<URL, CurlewError> {
        do {
            return .success(try await response.value)
        } catch {
            return .failure(error)
        }
    }

    /// Cancels the download; with `producingResumeData`, keeps what arrived and returns what it
    /// takes to continue it with ``Session/download(resumingWith:to:options:)``.
    ///
    /// Returns nil — and removes the partial file, as a plain ``Request/cancel()`` does — when
    /// there is nothing to resume: no byte arrived, the response named no strong validator (a
    /// strong `ETag`, or a `Last-Modified` a minute before its `Date`) or was content-coded, the
    /// download had already finished, or it had not started. Waits for the transfer to stop, so
    /// the partial file is complete when it returns.
    public func cancel(producingResumeData: Bool) async -> DownloadResumeData? {
        guard producingResumeData else {
            cancel()
            return nil
        }
        core.cancel(.cancelled, "the download was cancelled", keepingPartialDownload: true)
        do {
            _ = try await core.completed()
            return nil
        } catch {
            return error.downloadResumeData
        }
    }
}
