import Foundation
import HTTPTypes

/// What every kind of request shares: validation, interception, authentication, events,
/// cancelling, suspending and resuming, and serializing the body.
///
/// ``DataRequest`` (the body in memory, or streamed) and ``DownloadRequest`` (the body in a
/// file) are the kinds there are; each gets this whole API from here, so a validation or a
/// serializer written for one works on the other.
///
/// A request starts on first consumption. However many results are asked of one request, it
/// makes exactly one network transfer (plus any retries).
public class Request: @unchecked Sendable {
    // Safe: the only stored property is a `let` of a Sendable type; the class is not open and
    // its subclasses are final and store nothing.
    let core: RequestCore

    init(core: RequestCore) {
        self.core = core
    }

    // MARK: Validation

    /// Accepts status 200..<300 and, when the request has an `Accept` header, a matching
    /// `Content-Type`.
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

    /// Accepts only these content types (wildcards such as `text/*` allowed). A response
    /// without a body (empty, 204, 205, or an answer to HEAD) needs no `Content-Type`; an
    /// empty list therefore accepts no response that has a body. A failure is an error of kind
    /// ``CurlewError/Kind/unacceptableContentType`` whose
    /// ``CurlewError/acceptableContentTypes`` lists `acceptable`, sorted.
    @discardableResult
    public func validate(contentType acceptable: [String]) -> Self {
        core.addValidation(Validators.contentType { _ in acceptable })
        return self
    }

    /// A custom check; throw to reject the response.
    ///
    /// `body` is the collected body of a data request, and nil for a streamed body and for a
    /// download (validated on its head before its file is moved into place).
    @discardableResult
    public func validate(_ validation: @escaping ResponseValidation) -> Self {
        core.addValidation(validation)
        return self
    }

    /// Exempts this request from the session's default validation
    /// (``SessionConfiguration/usesDefaultValidation``), for example to read a 404's body.
    /// Validations asked of the request itself (`validate(…)`, before or after) still apply;
    /// on a session without default validation this does nothing.
    @discardableResult
    public func skipDefaultValidation() -> Self {
        core.skipDefaultValidation()
        return self
    }

    // MARK: Interception and authentication

    /// Adds an interceptor for this request only; it runs after the session's.
    @discardableResult
    public func intercept(with interceptor: any RequestInterceptor) -> Self {
        core.addInterceptor(interceptor)
        return self
    }

    /// Authenticates with a user name and password through libcurl (Alamofire's
    /// `authenticate(username:password:)`), instead of the session's
    /// ``SessionConfiguration/httpCredentials``.
    ///
    /// With ``HTTPAuthenticationMethod/any`` (the default) the first request goes without
    /// credentials and libcurl answers the server's challenge with the safest scheme it offers;
    /// ``HTTPAuthenticationMethod/basic`` sends them at once. The credentials go only to the
    /// origin (scheme, host and port) of the request's URL, never to a redirect target
    /// elsewhere. Bad input (an empty user name; CR, LF or NUL; ':' in a user name for Basic; a
    /// method the installed libcurl lacks) fails the request with
    /// ``CurlewError/Kind/invalidRequest`` when it is consumed.
    @discardableResult
    public func authenticate(
        username: String, password: String, method: HTTPAuthenticationMethod = .any
    ) -> Self {
        authenticate(with: HTTPCredential(username: username, password: password, method: method))
    }

    /// Authenticates with `credential`; see ``authenticate(username:password:method:)``.
    @discardableResult
    public func authenticate(with credential: HTTPCredential) -> Self {
        core.setCredential(credential)
        return self
    }

    // MARK: Serialized results

    /// The response with a value made by `serializer` from the body: the collected body of a
    /// data request, or the file of a finished download, read whole.
    ///
    /// When the serializer fails, the retriers are consulted (once per attempt, however many
    /// serializers fail); if one says so, the request runs again and the new response is
    /// serialized.
    public func serialized<S: ResponseSerializer>(by serializer: S) async throws(CurlewError) -> Response<S.Output> {
        try await serializedResult(by: serializer).get()
    }

    /// ``serialized(by:)`` for code that does not want to throw: the response, or the error it
    /// would have thrown. It shares the request's one transfer with every other result.
    public func serializedResult<S: ResponseSerializer>(by serializer: S) async -> Result<Response<S.Output>, CurlewError> {
        let result = await serialize(by: serializer)
        if let monitor = core.monitor { monitor.monitor.request(monitor.id, didSerialize: result) }
        return result
    }

    private nonisolated(nonsending) func serialize<S: ResponseSerializer>(by serializer: S) async -> Result<Response<S.Output>, CurlewError> {
        var completed: RequestCore.Completed
        do {
            completed = try await core.completed()
        } catch {
            return .failure(error)
        }
        while true {
            let failure: CurlewError
            do throws(CurlewError) {
                let raw = try Self.body(of: completed)
                do {
                    return .success(try raw.map { _ in try serializer.serialize(raw) })
                } catch let error as CurlewError {
                    failure = error
                } catch {
                    failure = raw.error(.serializationFailed, "\(S.self) failed: \(error)", underlying: error)
                }
            } catch {
                return .failure(error)
            }
            switch await core.recover(fromSerializationFailure: failure, of: completed) {
            case .serializeAgain(let newer): completed = newer
            case .fail(let error): return .failure(error)
            }
        }
    }

    /// The response with its raw body: the collected one, or the downloaded file's contents.
    static func body(of completed: RequestCore.Completed) throws(CurlewError) -> Response<Data> {
        let outcome = completed.outcome
        return Response(
            request: outcome.request, url: outcome.url, responseHead: outcome.responseHead, value: try rawBody(of: outcome),
            metrics: outcome.metrics, redirects: outcome.redirects, attempts: completed.attempts)
    }

    /// The collected body, or the downloaded file's contents.
    private static func rawBody(of outcome: TransferOutcome) throws(CurlewError) -> Data {
        guard let file = outcome.fileURL else { return outcome.body }
        do {
            // An empty file is not read: Foundation's reader allocates a buffer for it that
            // it never frees (LeakSanitizer saw 4 KiB per empty download).
            let size = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? Int
            return size == 0 ? Data() : try Data(contentsOf: file)
        } catch {
            throw CurlewError(
                .fileSystem, "cannot read the downloaded file \(file.path): \(error.localizedDescription)",
                url: outcome.url, responseHead: outcome.head, underlying: error)
        }
    }

    /// The body.
    public func data() async throws(CurlewError) -> Data {
        // `DataResponseSerializer` hands the body back as it is and never fails: no `Response`
        // is built for it (2,000 instructions per small request) unless an event monitor
        // watches serializations.
        guard core.monitor == nil else { return try await serialized(by: DataResponseSerializer()).value }
        return try Self.rawBody(of: try await core.completed().outcome)
    }

    /// The body, or the error ``data()`` would have thrown — Alamofire's `response.result` of
    /// `responseData`, for code that does not want to throw.
    ///
    /// ```swift
    /// switch await session.request(url).validate().dataResult() {
    /// case .success(let body): print(body.count)
    /// case .failure(let error): print(error.kind, error.status?.code ?? 0)
    /// }
    /// ```
    ///
    /// Each `…Result` method is the twin of the throwing method whose name it extends:
    /// `dataResult()` of `data()`, `stringResult(encoding:)` of `string(encoding:)`,
    /// `decodeResult(_:decoder:)` of `decode(_:decoder:)`, ``serializedResult(by:)`` (the whole
    /// ``Response``) of ``serialized(by:)``, and a download's `fileURLResult()` of `fileURL()`.
    /// Asking several of them, and the throwing ones, still makes one transfer.
    public func dataResult() async -> Result<Data, CurlewError> {
        // As in `data()`: no `Response` unless a monitor watches serializations.
        guard core.monitor == nil else { return await serializedResult(by: DataResponseSerializer()).map(\.value) }
        do {
            return .success(try Self.rawBody(of: try await core.completed().outcome))
        } catch {
            return .failure(error)
        }
    }

    /// The body decoded from JSON, or the error ``decode(_:decoder:)`` would have thrown.
    public func decodeResult<T: Decodable & Sendable>(_ type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder())
        async -> Result<T, CurlewError>
    {
        await serializedResult(by: DecodableResponseSerializer<T>(decoder: decoder)).map(\.value)
    }

    /// The body as text, in the charset from `Content-Type`, else UTF-8, else ISO-8859-1.
    public func string(encoding: String.Encoding? = nil) async throws(CurlewError) -> String {
        try await serialized(by: StringResponseSerializer(encoding: encoding)).value
    }

    /// The body as text, or the error ``string(encoding:)`` would have thrown.
    public func stringResult(encoding: String.Encoding? = nil) async -> Result<String, CurlewError> {
        await serializedResult(by: StringResponseSerializer(encoding: encoding)).map(\.value)
    }

    /// The body decoded from JSON.
    public func decode<T: Decodable & Sendable>(_ type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder())
        async throws(CurlewError) -> T
    {
        try await serialized(by: DecodableResponseSerializer<T>(decoder: decoder)).value
    }

    // MARK: Events and control

    /// The transfer's events: progress both ways, the response head, suspension and
    /// resumption, and completion.
    ///
    /// Reading this starts the request. Dropping the iterator before the end cancels it.
    public var events: AsyncThrowingStream<TransferEvent, any Error> {
        core.eventStream()
    }

    /// Cancels the request; its consumers fail with ``CurlewError/Kind/cancelled``. A download
    /// leaves nothing at its destination.
    public func cancel() {
        core.cancel(.cancelled, core.isDownload ? "the download was cancelled" : "the request was cancelled")
    }

    /// Stops moving bytes, both ways, until ``resume()``: libcurl pauses the transfer on the
    /// session's thread, so the server sees its writes stall. `events` reports
    /// ``TransferEvent/suspended``; after it, no bytes arrive until ``TransferEvent/resumed``.
    ///
    /// - A request not started yet starts only once resumed (consuming it waits until then).
    /// - A suspended transfer is not idle: ``Timeouts/idle`` does not fire, and its clock starts
    ///   again on resumption. ``Timeouts/total`` is a deadline for the whole transfer and counts
    ///   the time suspended too. ``Timeouts/minimumSpeed`` is not checked while suspended.
    /// - The suspension holds across redirects and retries. Suspending twice is suspending
    ///   once; suspending a finished request does nothing.
    public func suspend() {
        core.suspend()
    }

    /// Moves bytes again after ``suspend()``, or starts a request whose start the suspension
    /// deferred. Resuming a request that is not suspended, or finished, does nothing.
    public func resume() {
        core.resume()
    }

    /// A `curl` command that repeats this request, quoted for a POSIX shell: as the adapters
    /// made it once it has run (the last attempt's, before redirects), as it was built before
    /// that. It is also what `debugPrint(request)` prints.
    ///
    /// Secrets are redacted as everywhere Curlew prints: the password of the URL and the values
    /// of secret query parameters, the passwords of HTTP authentication, the proxy and a client
    /// key (`-u 'ann:***'`), `Authorization`, `Proxy-Authorization` and `Cookie` values, and
    /// the secret fields of JSON and form bodies (such as `password` and `access_token`) show
    /// as `***`. To get a command you can paste and run as it is, ask for the secrets
    /// explicitly with `revealingSecrets: true`, and keep that text out of logs.
    public func cURLDescription(revealingSecrets: Bool = false) -> String {
        let (result, adapted, _) = core.printState()
        let request: Result<OutgoingRequest, CurlewError>
        switch (result, adapted) {
        case (.success(let completed)?, _): request = .success(completed.request)
        case (_, let adapted?): request = .success(adapted)
        case (_, nil): request = core.effectiveBuild
        }
        return CURLCommand.describe(
            request, configuration: core.session.configuration, sessionProxy: core.session.transferSettings.proxy,
            revealingSecrets: revealingSecrets)
    }
}
