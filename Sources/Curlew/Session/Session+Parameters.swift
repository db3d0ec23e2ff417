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
        encoder: some ParameterEncoder = URLEncodedFormParameterEncoder(), headers: HTTPFields = HTTPFields(),
        options: RequestOptions = RequestOptions()
    ) -> DataRequest {
        encoded(url: url, method: method, headers: .fields(headers), options: options) { request in
            try encoder.encode(parameters, into: &request)
        }
    }

    /// A request with untyped parameters (`["q": "curl", "page": 2]`), written by `encoder`.
    public nonisolated func request(
        _ url: some URLConvertible, method: HTTPRequest.Method = .get, parameters: Parameters,
        encoder: some ParameterEncoder = URLEncodedFormParameterEncoder(), headers: HTTPFields = HTTPFields(),
        options: RequestOptions = RequestOptions()
    ) -> DataRequest {
        encoded(url: url, method: method, headers: .fields(headers), options: options) { request in
            try encoder.encode(parameters, into: &request)
        }
    }

    /// A request with several parameter sets at once, for example URL parameters in the query
    /// and JSON in the body; see ``RequestParameters`` for the merge rules.
    public nonisolated func request(
        _ url: some URLConvertible, method: HTTPRequest.Method = .get, parameterSets: RequestParameters,
        headers: HTTPFields = HTTPFields(), options: RequestOptions = RequestOptions()
    ) -> DataRequest {
        encoded(url: url, method: method, headers: .fields(headers), options: options) { request in
            try parameterSets.encode(into: &request)
        }
    }

    /// A multipart/form-data upload. Small forms are encoded in memory; large ones stream from
    /// their files and streams, so a 2 GiB file is never held in memory.
    public nonisolated func upload(
        multipartFormData form: MultipartFormData, to url: some URLConvertible, method: HTTPRequest.Method = .post,
        headers: HTTPFields = HTTPFields(), options: RequestOptions = RequestOptions()
    ) -> DataRequest {
        encoded(url: url, method: method, headers: .fields(headers), options: options) { request in
            try form.encode(into: &request)
        }
    }

    nonisolated func encoded(
        url: some URLConvertible, method: HTTPRequest.Method, headers: HeaderInput, options: RequestOptions,
        _ encode: (inout OutgoingRequest) throws -> Void
    ) -> DataRequest {
        DataRequest(session: self, build: RequestBuilder.build(url: url, method: method, headers: headers, options: options, encode))
    }
}
