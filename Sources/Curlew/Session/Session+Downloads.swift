import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes

/// Downloads take everything a data request takes — a URL with headers as `HTTPFields` or as
/// strings, parameters with an encoder, an ``OutgoingRequest``, a `URLRequest` — plus where the
/// file goes. Without a destination, the file goes to ``DownloadDestination/temporaryFile``: a
/// new file in the temporary directory that belongs to the caller (`Response<URL>` says where).
///
/// ```swift
/// let file = try await session.download("https://example.com/report.pdf").validate().fileURL()
/// let report = try await session.download(url, to: .directory(reports)).validate().decode(Report.self)
/// ```
///
/// Only http and https are downloaded: a `file://` URL fails with
/// ``CurlewError/Kind/unsupportedScheme`` when consumed, as for data requests.
extension Session {
    /// A download written straight to disk as it arrives, with progress events.
    public nonisolated func download(
        _ url: some URLConvertible, method: HTTPRequest.Method = .get, headers: HTTPFields = HTTPFields(),
        body: RequestBody? = nil, to destination: DownloadDestination = .temporaryFile, options: DownloadOptions = [],
        requestOptions: RequestOptions = RequestOptions()
    ) -> DownloadRequest {
        download(
            RequestBuilder.build(url: url, method: method, headers: .fields(headers), body: body, options: requestOptions),
            to: destination, options: options)
    }

    /// A download whose headers are given as strings, which are validated as for data requests:
    /// a name or value with CR, LF or other forbidden bytes fails it with
    /// ``CurlewError/Kind/invalidHeader``.
    public nonisolated func download(
        _ url: some URLConvertible, method: HTTPRequest.Method = .get, headers: [String: String],
        body: RequestBody? = nil, to destination: DownloadDestination = .temporaryFile, options: DownloadOptions = [],
        requestOptions: RequestOptions = RequestOptions()
    ) -> DownloadRequest {
        download(
            RequestBuilder.build(url: url, method: method, headers: .strings(headers), body: body, options: requestOptions),
            to: destination, options: options)
    }

    /// A download of a request built in full beforehand.
    public nonisolated func download(
        _ request: OutgoingRequest, to destination: DownloadDestination = .temporaryFile, options: DownloadOptions = []
    ) -> DownloadRequest {
        download(RequestBuilder.validate(request), to: destination, options: options)
    }

    /// A download of a request converted from Foundation's `URLRequest`.
    public nonisolated func download(
        _ urlRequest: URLRequest, to destination: DownloadDestination = .temporaryFile, options: DownloadOptions = []
    ) -> DownloadRequest {
        download(RequestBuilder.build(urlRequest), to: destination, options: options)
    }

    /// A download whose `Encodable` parameters `encoder` writes into the query or the body.
    public nonisolated func download<P: Encodable & Sendable>(
        _ url: some URLConvertible, method: HTTPRequest.Method = .get, parameters: P,
        encoder: some ParameterEncoder = URLEncodedFormParameterEncoder(), headers: HTTPFields = HTTPFields(),
        to destination: DownloadDestination = .temporaryFile, options: DownloadOptions = [],
        requestOptions: RequestOptions = RequestOptions()
    ) -> DownloadRequest {
        encodedDownload(
            url: url, method: method, headers: .fields(headers), to: destination, options: options, requestOptions: requestOptions
        ) { request in try encoder.encode(parameters, into: &request) }
    }

    /// A download with untyped parameters (`["q": "curl", "page": 2]`), written by `encoder`.
    public nonisolated func download(
        _ url: some URLConvertible, method: HTTPRequest.Method = .get, parameters: Parameters,
        encoder: some ParameterEncoder = URLEncodedFormParameterEncoder(), headers: HTTPFields = HTTPFields(),
        to destination: DownloadDestination = .temporaryFile, options: DownloadOptions = [],
        requestOptions: RequestOptions = RequestOptions()
    ) -> DownloadRequest {
        encodedDownload(
            url: url, method: method, headers: .fields(headers), to: destination, options: options, requestOptions: requestOptions
        ) { request in try encoder.encode(parameters, into: &request) }
    }

    /// A download with several parameter sets at once; see ``RequestParameters``.
    public nonisolated func download(
        _ url: some URLConvertible, method: HTTPRequest.Method = .get, parameterSets: RequestParameters,
        headers: HTTPFields = HTTPFields(), to destination: DownloadDestination = .temporaryFile, options: DownloadOptions = [],
        requestOptions: RequestOptions = RequestOptions()
    ) -> DownloadRequest {
        encodedDownload(
            url: url, method: method, headers: .fields(headers), to: destination, options: options, requestOptions: requestOptions
        ) { request in try parameterSets.encode(into: &request) }
    }

    /// Continues a download from its resume data (see ``DownloadResumeData``).
    ///
    /// Sends the request again with `Range: bytes=N-` and `If-Range: <validator>`, where N is
    /// the size of the partial file:
    /// - a `206` whose `Content-Range` starts at N (and gives the same total) appends to it;
    /// - a `200` — the server ignored the range, or the resource changed — starts it again
    ///   from empty, so no bytes of two versions are ever mixed;
    /// - a `416` saying the resource is N bytes long finishes with the file as it is; the
    ///   response is reported as a `200` with that length;
    /// - a `Content-Range` that starts elsewhere or gives another total fails with
    ///   ``CurlewError/Kind/resumeFailed`` and writes nothing (the partial file stays as it was);
    /// - any other status is a response like any other: its body goes to a new file, and the
    ///   partial file is not touched.
    ///
    /// On success the completed file moves to `destination`. Progress counts from N: the first
    /// event reports N bytes of the whole. A resumed download that fails again gives new resume
    /// data, so it can be resumed again.
    public nonisolated func download(
        resumingWith resumeData: DownloadResumeData, to destination: DownloadDestination, options: DownloadOptions = [],
        requestOptions: RequestOptions = RequestOptions()
    ) -> DownloadRequest {
        DownloadRequest(
            session: self, build: resumeData.resumingRequest(options: requestOptions), destination: destination,
            options: options, resuming: resumeData)
    }

    /// A download whose query or body `encode` writes (parameters with an encoder, parameter
    /// sets), with headers in either form.
    nonisolated func encodedDownload(
        url: some URLConvertible, method: HTTPRequest.Method, headers: HeaderInput, to destination: DownloadDestination,
        options: DownloadOptions, requestOptions: RequestOptions, _ encode: (inout OutgoingRequest) throws -> Void
    ) -> DownloadRequest {
        download(
            RequestBuilder.build(url: url, method: method, headers: headers, options: requestOptions, encode),
            to: destination, options: options)
    }

    nonisolated func download(
        _ build: Result<OutgoingRequest, CurlewError>, to destination: DownloadDestination, options: DownloadOptions
    ) -> DownloadRequest {
        DownloadRequest(session: self, build: build, destination: destination, options: options)
    }
}
