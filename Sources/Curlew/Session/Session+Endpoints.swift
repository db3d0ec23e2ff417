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

    /// A download of `endpoint` to `destination`; see
    /// ``download(_:method:headers:body:to:options:)``.
    public nonisolated func download(
        _ endpoint: some EndpointConvertible, to destination: DownloadDestination = .temporaryFile
    ) -> DownloadRequest {
        let resolved = RequestBuilder.endpoint(endpoint)
        return download(resolved.flatMap(Self.request(for:)), to: destination).intercepted(by: resolved)
    }

    /// Uploads `body` to `endpoint`, with POST unless the endpoint names a method; see
    /// ``upload(_:to:method:headers:options:)``.
    ///
    /// The uploaded body is the only body: an endpoint with a body of its own or body
    /// parameters fails with ``CurlewError/Kind/invalidRequest``; its query parameters apply.
    public nonisolated func upload(_ body: RequestBody, to endpoint: some EndpointConvertible) -> DataRequest {
        upload(to: endpoint) { $0.body = body }
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
