import Foundation
import HTTPTypes

/// A request whose body is collected in memory or streamed.
///
/// It starts on first consumption. However many results are asked of one `DataRequest`
/// (`data()`, `decode`, `response`, `events`, several `serialized(by:)`), it makes exactly one
/// network transfer (plus any retries); `bytes` streams the body instead and cannot be
/// combined with the collecting results.
public final class DataRequest: Sendable {
    let core: RequestCore

    init(session: Session, build: Result<OutgoingRequest, CurlewError>, usesSessionInterceptors: Bool = true) {
        core = RequestCore(session: session, build: build, mode: .collect, usesSessionInterceptors: usesSessionInterceptors)
    }

    // MARK: Validation and interception

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

    /// Accepts only these content types (wildcards such as `text/*` allowed).
    @discardableResult
    public func validate(contentType acceptable: [String]) -> Self {
        core.addValidation(Validators.contentType { _ in acceptable })
        return self
    }

    /// A custom check; throw to reject the response.
    @discardableResult
    public func validate(_ validation: @escaping ResponseValidation) -> Self {
        core.addValidation(validation)
        return self
    }

    /// Authenticates with a user name and password through libcurl (Alamofire's
    /// `authenticate(username:password:)`), instead of the session's
    /// ``SessionConfiguration/credentials``.
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

    /// Adds an interceptor for this request only; it runs after the session's.
    @discardableResult
    public func intercept(with interceptor: any RequestInterceptor) -> Self {
        core.addInterceptor(interceptor)
        return self
    }

    // MARK: Results

    /// The response with the raw body.
    public var response: Response<Data> {
        get async throws(CurlewError) {
            Self.response(from: try await core.completed())
        }
    }

    /// The response with a value made by `serializer`.
    ///
    /// When the serializer fails, the retriers are consulted (once per attempt, however many
    /// serializers fail); if one says so, the request runs again and the new response is
    /// serialized.
    public func serialized<S: ResponseSerializer>(by serializer: S) async throws(CurlewError) -> Response<S.Output> {
        let result = await serialize(by: serializer)
        if let monitor = core.monitor { monitor.monitor.request(monitor.id, didSerialize: result) }
        return try result.get()
    }

    private func serialize<S: ResponseSerializer>(by serializer: S) async -> Result<Response<S.Output>, CurlewError> {
        var completed: RequestCore.Completed
        do {
            completed = try await core.completed()
        } catch {
            return .failure(error)
        }
        while true {
            let raw = Self.response(from: completed)
            let failure: CurlewError
            do {
                return .success(try raw.map { _ in try serializer.serialize(raw) })
            } catch let error as CurlewError {
                failure = error
            } catch {
                failure = raw.error(.serializationFailed, "\(S.self) failed: \(error)", underlying: error)
            }
            switch await core.recover(fromSerializationFailure: failure, of: completed) {
            case .serializeAgain(let newer): completed = newer
            case .fail(let error): return .failure(error)
            }
        }
    }

    private static func response(from completed: RequestCore.Completed) -> Response<Data> {
        let outcome = completed.outcome
        return Response(
            request: outcome.request, url: outcome.url, head: outcome.head, value: outcome.body,
            metrics: outcome.metrics, redirects: outcome.redirects, attempts: completed.attempts)
    }

    /// The body.
    public func data() async throws(CurlewError) -> Data {
        try await serialized(by: DataResponseSerializer()).value
    }

    /// The body as text, in the charset from `Content-Type`, else UTF-8, else ISO-8859-1.
    public func string(encoding: String.Encoding? = nil) async throws(CurlewError) -> String {
        try await serialized(by: StringResponseSerializer(encoding: encoding)).value
    }

    /// The body decoded from JSON.
    public func decode<T: Decodable & Sendable>(_ type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder())
        async throws(CurlewError) -> T
    {
        try await serialized(by: DecodableResponseSerializer<T>(decoder: decoder)).value
    }

    /// The transfer's events: progress both ways, the response head, and completion.
    ///
    /// Reading this starts the request. Dropping the iterator before the end cancels it.
    public var events: AsyncThrowingStream<TransferEvent, any Error> {
        core.eventStream()
    }

    /// The body as it arrives, in chunks, with backpressure: when the consumer falls behind by
    /// more than ``SessionConfiguration/streamBufferSize`` bytes, the transfer pauses.
    ///
    /// Validation runs on the head before the first chunk. Dropping the iterator cancels the
    /// transfer.
    public var bytes: ByteStream { ByteStream(core: core) }

    /// Cancels the request; its consumers fail with ``CurlewError/Kind/cancelled``.
    public func cancel() {
        core.cancel(.cancelled, "the request was cancelled")
    }

    /// A `curl` command that repeats this request (before adapters), quoted for a POSIX shell,
    /// with the password of the URL and credential headers replaced by `***`.
    public func cURLDescription() -> String {
        CURLCommand.describe(core.effectiveBuild, configuration: core.session.configuration)
    }
}
