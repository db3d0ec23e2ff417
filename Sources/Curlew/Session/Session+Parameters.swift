import Foundation
import HTTPTypes

extension Session {
    /// A request whose `Encodable` parameters are written by `encoder` into the query or the body.
    ///
    /// ```swift
    /// let user = try await session.request(url, method: .post, parameters: NewUser(name: "Ann"), encoder: .json)
    ///     .validate().decode(User.self)
    /// ```
    ///
    /// An encoding failure does not throw here: the request fails with it when consumed.
    public nonisolated func request<P: Encodable & Sendable>(
        _ url: some URLConvertible, method: HTTPRequest.Method = .get, parameters: P,
        encoder: some ParameterEncoder = URLEncodedFormParameterEncoder(), headers: RequestHeaders = [:],
        options: RequestOptions = RequestOptions()
    ) -> DataRequest {
        encoded(url: url, method: method, headers: headers, options: options) { request in
            try encoder.encode(parameters, into: &request)
        }
    }

    /// A request with untyped parameters (`["q": "curl", "page": 2]`), written by `encoder`.
    public nonisolated func request(
        _ url: some URLConvertible, method: HTTPRequest.Method = .get, parameters: Parameters,
        encoder: some ParameterEncoder = URLEncodedFormParameterEncoder(), headers: RequestHeaders = [:],
        options: RequestOptions = RequestOptions()
    ) -> DataRequest {
        encoded(url: url, method: method, headers: headers, options: options) { request in
            try encoder.encode(parameters, into: &request)
        }
    }

    nonisolated func encoded(
        url: some URLConvertible, method: HTTPRequest.Method, headers: RequestHeaders, options: RequestOptions,
        _ encode: (inout OutgoingRequest) throws -> Void
    ) -> DataRequest {
        DataRequest(session: self, build: RequestBuilder.build(url: url, method: method, headers: headers, options: options, encode))
    }
}
