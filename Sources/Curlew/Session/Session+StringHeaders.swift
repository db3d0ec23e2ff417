import Foundation
import HTTPTypes

/// Every way of making a request takes its headers in both forms: as `HTTPFields`, or as
/// `[String: String]`, whose names and values are validated (CR, LF, NUL or a bad name fail the
/// request with ``CurlewError/Kind/invalidHeader`` when it is consumed) and sent in name order.
/// These are the string forms of the calls that take parameters, forms and upload bodies.
extension Session {
    /// A request whose `Encodable` parameters `encoder` writes, with headers as strings.
    public nonisolated func request<P: Encodable & Sendable>(
        _ url: some URLConvertible, method: HTTPRequest.Method = .get, parameters: P,
        encoder: some ParameterEncoder = URLEncodedFormParameterEncoder(), headers: [String: String],
        options: RequestOptions = RequestOptions()
    ) -> DataRequest {
        encoded(url: url, method: method, headers: .strings(headers), options: options) { request in
            try encoder.encode(parameters, into: &request)
        }
    }

    /// A request with untyped parameters written by `encoder`, with headers as strings.
    public nonisolated func request(
        _ url: some URLConvertible, method: HTTPRequest.Method = .get, parameters: Parameters,
        encoder: some ParameterEncoder = URLEncodedFormParameterEncoder(), headers: [String: String],
        options: RequestOptions = RequestOptions()
    ) -> DataRequest {
        encoded(url: url, method: method, headers: .strings(headers), options: options) { request in
            try encoder.encode(parameters, into: &request)
        }
    }

    /// A request with several parameter sets, with headers as strings.
    public nonisolated func request(
        _ url: some URLConvertible, method: HTTPRequest.Method = .get, parameterSets: RequestParameters,
        headers: [String: String], options: RequestOptions = RequestOptions()
    ) -> DataRequest {
        encoded(url: url, method: method, headers: .strings(headers), options: options) { request in
            try parameterSets.encode(into: &request)
        }
    }

    /// A multipart/form-data upload, with headers as strings.
    public nonisolated func upload(
        multipartFormData form: MultipartFormData, to url: some URLConvertible, method: HTTPRequest.Method = .post,
        headers: [String: String], options: RequestOptions = RequestOptions()
    ) -> DataRequest {
        encoded(url: url, method: method, headers: .strings(headers), options: options) { request in
            try form.encode(into: &request)
        }
    }

    /// Uploads `data`, with headers as strings.
    public nonisolated func upload(
        _ data: Data, to url: some URLConvertible, method: HTTPRequest.Method = .post, headers: [String: String],
        options: RequestOptions = RequestOptions()
    ) -> DataRequest {
        request(url, method: method, headers: headers, body: .data(data), options: options)
    }

    /// Uploads the file at `fileURL`, with headers as strings.
    public nonisolated func upload(
        fileAt fileURL: URL, to url: some URLConvertible, method: HTTPRequest.Method = .post,
        headers: [String: String], options: RequestOptions = RequestOptions()
    ) -> DataRequest {
        request(url, method: method, headers: headers, body: .file(fileURL), options: options)
    }

    /// Uploads an asynchronous sequence of byte chunks, with headers as strings.
    public nonisolated func upload<S: AsyncSequence & Sendable>(
        _ stream: S, length: Int64? = nil, to url: some URLConvertible, method: HTTPRequest.Method = .post,
        headers: [String: String], options: RequestOptions = RequestOptions()
    ) -> DataRequest where S.Element: Collection<UInt8> & Sendable {
        request(url, method: method, headers: headers, body: .stream(stream, length: length), options: options)
    }

    /// Uploads a Foundation `InputStream`, with headers as strings.
    public nonisolated func upload(
        _ stream: InputStream, length: Int64? = nil, to url: some URLConvertible, method: HTTPRequest.Method = .post,
        headers: [String: String], options: RequestOptions = RequestOptions()
    ) -> DataRequest {
        request(url, method: method, headers: headers, body: .inputStream(stream, length: length), options: options)
    }

    /// Uploads any ``RequestBody``, with headers as strings.
    public nonisolated func upload(
        _ body: RequestBody, to url: some URLConvertible, method: HTTPRequest.Method = .post,
        headers: [String: String], options: RequestOptions = RequestOptions()
    ) -> DataRequest {
        request(url, method: method, headers: headers, body: body, options: options)
    }

    /// A download whose `Encodable` parameters `encoder` writes, with headers as strings.
    public nonisolated func download<P: Encodable & Sendable>(
        _ url: some URLConvertible, method: HTTPRequest.Method = .get, parameters: P,
        encoder: some ParameterEncoder = URLEncodedFormParameterEncoder(), headers: [String: String],
        to destination: DownloadDestination = .temporaryFile, options: DownloadOptions = [],
        requestOptions: RequestOptions = RequestOptions()
    ) -> DownloadRequest {
        encodedDownload(
            url: url, method: method, headers: .strings(headers), to: destination, options: options, requestOptions: requestOptions
        ) { request in try encoder.encode(parameters, into: &request) }
    }

    /// A download with untyped parameters written by `encoder`, with headers as strings.
    public nonisolated func download(
        _ url: some URLConvertible, method: HTTPRequest.Method = .get, parameters: Parameters,
        encoder: some ParameterEncoder = URLEncodedFormParameterEncoder(), headers: [String: String],
        to destination: DownloadDestination = .temporaryFile, options: DownloadOptions = [],
        requestOptions: RequestOptions = RequestOptions()
    ) -> DownloadRequest {
        encodedDownload(
            url: url, method: method, headers: .strings(headers), to: destination, options: options, requestOptions: requestOptions
        ) { request in try encoder.encode(parameters, into: &request) }
    }

    /// A download with several parameter sets, with headers as strings.
    public nonisolated func download(
        _ url: some URLConvertible, method: HTTPRequest.Method = .get, parameterSets: RequestParameters,
        headers: [String: String], to destination: DownloadDestination = .temporaryFile, options: DownloadOptions = [],
        requestOptions: RequestOptions = RequestOptions()
    ) -> DownloadRequest {
        encodedDownload(
            url: url, method: method, headers: .strings(headers), to: destination, options: options, requestOptions: requestOptions
        ) { request in try parameterSets.encode(into: &request) }
    }
}
