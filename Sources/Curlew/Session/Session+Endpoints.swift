import Foundation
import HTTPTypes

/// Requests from an ``Endpoint`` or any ``EndpointConvertible`` (a router enum): the
/// endpoint's interceptors run after the session's and before the request's own.
extension Session {
    /// A request for `endpoint`.
    ///
    /// ```swift
    /// let user = try await session.request(GitHub.user("octocat")).validate().decode(User.self)
    /// ```
    public nonisolated func request(_ endpoint: some EndpointConvertible) -> DataRequest {
        let resolved = RequestBuilder.endpoint(endpoint)
        return DataRequest(session: self, build: resolved.flatMap(Self.request(for:))).intercepted(by: resolved)
    }

    /// A download of `endpoint`; see ``download(_:method:headers:body:to:options:requestOptions:)-(_,_,HTTPFields,_,_,_,_)``.
    public nonisolated func download(
        _ endpoint: some EndpointConvertible, to destination: DownloadDestination = .temporaryFile,
        options: DownloadOptions = []
    ) -> DownloadRequest {
        let resolved = RequestBuilder.endpoint(endpoint)
        return download(resolved.flatMap(Self.request(for:)), to: destination, options: options).intercepted(by: resolved)
    }

    /// Uploads `data` to `endpoint`, with POST unless the endpoint names a method.
    ///
    /// The uploaded body is the only body: an endpoint with a body of its own or body
    /// parameters fails with ``CurlewError/Kind/invalidRequest``; its query parameters apply.
    public nonisolated func upload(_ data: Data, to endpoint: some EndpointConvertible) -> DataRequest {
        upload(to: endpoint) { $0.body = .data(data) }
    }

    /// Uploads the file at `fileURL` to `endpoint`; see ``upload(_:to:)-(Data,_)``.
    public nonisolated func upload(fileAt fileURL: URL, to endpoint: some EndpointConvertible) -> DataRequest {
        upload(to: endpoint) { $0.body = .file(fileURL) }
    }

    /// Uploads a sequence of byte chunks to `endpoint`; see ``upload(_:to:)-(Data,_)``.
    public nonisolated func upload<S: AsyncSequence & Sendable>(
        _ stream: S, length: Int64? = nil, to endpoint: some EndpointConvertible
    ) -> DataRequest where S.Element: Collection<UInt8> & Sendable {
        upload(to: endpoint) { $0.body = .stream(stream, length: length) }
    }

    /// Uploads a Foundation `InputStream` to `endpoint`; see ``upload(_:to:)-(Data,_)``.
    public nonisolated func upload(
        _ stream: InputStream, length: Int64? = nil, to endpoint: some EndpointConvertible
    ) -> DataRequest {
        upload(to: endpoint) { $0.body = .inputStream(stream, length: length) }
    }

    /// Uploads any ``RequestBody`` to `endpoint`; see ``upload(_:to:)-(Data,_)``.
    public nonisolated func upload(_ body: RequestBody, to endpoint: some EndpointConvertible) -> DataRequest {
        upload(to: endpoint) { $0.body = body }
    }

    /// Uploads a multipart/form-data form to `endpoint`; see ``upload(_:to:)-(Data,_)``.
    public nonisolated func upload(
        multipartFormData form: MultipartFormData, to endpoint: some EndpointConvertible
    ) -> DataRequest {
        upload(to: endpoint) { try form.encode(into: &$0) }
    }

    private nonisolated func upload(
        to endpoint: some EndpointConvertible, _ fill: @escaping (inout OutgoingRequest) throws -> Void
    ) -> DataRequest {
        let resolved = RequestBuilder.endpoint(endpoint)
        let build = resolved.flatMap { endpoint in
            Result { () throws(CurlewError) in try endpoint.uploadRequest(fill) }
        }
        return DataRequest(session: self, build: build).intercepted(by: resolved)
    }

    private static func request(for endpoint: Endpoint) -> Result<OutgoingRequest, CurlewError> {
        Result { () throws(CurlewError) in try endpoint.outgoingRequest() }
    }
}

extension Request {
    /// Adds the endpoint's interceptors, after the session's and before any of the request's own.
    func intercepted(by endpoint: Result<Endpoint, CurlewError>) -> Self {
        if case .success(let endpoint) = endpoint {
            for interceptor in endpoint.interceptors { core.addInterceptor(interceptor) }
        }
        return self
    }
}
