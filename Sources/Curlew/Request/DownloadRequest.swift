import Foundation
import HTTPTypes

/// A request whose body is written straight to a file as it arrives.
///
/// The body goes to a temporary file beside the destination, moved into place atomically
/// when the transfer succeeds; a failed download leaves nothing at the destination.
public final class DownloadRequest: Sendable {
    let core: RequestCore

    init(session: Session, build: Result<OutgoingRequest, CurlewError>, destination: DownloadDestination, options: DownloadOptions) {
        core = RequestCore(session: session, build: build, mode: .download(destination, options))
    }

    /// Accepts status 200..<300 (and a `Content-Type` matching `Accept`, when set).
    @discardableResult
    public func validate() -> Self {
        core.addStandardValidations()
        return self
    }

    /// Accepts only these status codes.
    @discardableResult
    public func validate<S: Sequence<Int> & Sendable>(statusCode acceptable: S) -> Self {
        core.addValidation(Validators.statusCode(acceptable))
        return self
    }

    /// A custom check; `body` is nil for downloads.
    @discardableResult
    public func validate(_ validation: @escaping ResponseValidation) -> Self {
        core.addValidation(validation)
        return self
    }

    /// Authenticates with a user name and password through libcurl; see
    /// ``DataRequest/authenticate(username:password:method:)``.
    @discardableResult
    public func authenticate(
        username: String, password: String, method: HTTPAuthenticationMethod = .any
    ) -> Self {
        authenticate(with: HTTPCredential(username: username, password: password, method: method))
    }

    /// Authenticates with `credential`; see ``DataRequest/authenticate(username:password:method:)``.
    @discardableResult
    public func authenticate(with credential: HTTPCredential) -> Self {
        core.setCredential(credential)
        return self
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
                request: outcome.request, url: outcome.url, head: outcome.head, value: file,
                metrics: outcome.metrics, redirects: outcome.redirects, attempts: completed.attempts)
        }
    }

    /// The file's final location.
    public func fileURL() async throws(CurlewError) -> URL {
        try await response.value
    }

    /// The transfer's events: progress, the response head, and completion with the file URL.
    /// Reading this starts the download. Dropping the iterator before the end cancels it.
    public var events: AsyncThrowingStream<TransferEvent, any Error> {
        core.eventStream()
    }

    /// Cancels the download; nothing is left at the destination.
    public func cancel() {
        core.cancel(.cancelled, "the download was cancelled")
    }

    /// A `curl` command that repeats this request, quoted for a POSIX shell, with the password
    /// of the URL and credential headers replaced by `***`.
    public func cURLDescription() -> String {
        CURLCommand.describe(core.effectiveBuild, configuration: core.session.configuration)
    }
}
