import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes

/// Downloads take the ways a data request is made — a URL with headers and a body or
/// parameters, an ``Endpoint``, an ``OutgoingRequest``, a `URLRequest` — plus where the file goes.
/// Without a destination, the file goes to ``DownloadDestination/temporaryFile``: a new file in
/// the temporary directory that belongs to the caller (`Response<URL>` says where).
///
/// ```swift
/// let file = try await session.download("https://example.com/report.pdf").validate().fileURL()
/// let report = try await session.download(url, to: .directory(reports)).validate().decode(Report.self)
/// let latest = try await session.download(url, to: .file(target, options: .removePreviousFile)).validate().fileURL()
/// ```
///
/// Only http and https are downloaded: a `file://` URL fails with
/// ``CurlewError/Kind/unsupportedScheme`` when consumed, as for data requests.
extension Session {
    /// A download written straight to disk as it arrives, with progress events.
    public nonisolated func download(
        _ url: some URLConvertible, method: HTTPRequest.Method = .get, headers: RequestHeaders = [:],
        body: RequestBody? = nil, to destination: DownloadDestination = .temporaryFile,
        options: RequestOptions = RequestOptions()
    ) -> DownloadRequest {
        download(RequestBuilder.build(url: url, method: method, headers: headers, body: body, options: options), to: destination)
    }

    /// A download of a request built in full beforehand.
    public nonisolated func download(
        _ request: OutgoingRequest, to destination: DownloadDestination = .temporaryFile
    ) -> DownloadRequest {
        download(RequestBuilder.validate(request), to: destination)
    }

    /// A download of a request converted from Foundation's `URLRequest`.
    public nonisolated func download(
        _ urlRequest: URLRequest, to destination: DownloadDestination = .temporaryFile
    ) -> DownloadRequest {
        download(RequestBuilder.build(urlRequest), to: destination)
    }

    /// A download whose `Encodable` parameters `encoder` writes into the query or the body.
    public nonisolated func download<P: Encodable & Sendable>(
        _ url: some URLConvertible, method: HTTPRequest.Method = .get, parameters: P,
        encoder: some ParameterEncoder = URLEncodedFormParameterEncoder(), headers: RequestHeaders = [:],
        to destination: DownloadDestination = .temporaryFile, options: RequestOptions = RequestOptions()
    ) -> DownloadRequest {
        download(
            RequestBuilder.build(url: url, method: method, headers: headers, options: options) { request in
                try encoder.encode(parameters, into: &request)
            },
            to: destination)
    }

    /// A download with untyped parameters (`["q": "curl", "page": 2]`), written by `encoder`.
    public nonisolated func download(
        _ url: some URLConvertible, method: HTTPRequest.Method = .get, parameters: Parameters,
        encoder: some ParameterEncoder = URLEncodedFormParameterEncoder(), headers: RequestHeaders = [:],
        to destination: DownloadDestination = .temporaryFile, options: RequestOptions = RequestOptions()
    ) -> DownloadRequest {
        download(
            RequestBuilder.build(url: url, method: method, headers: headers, options: options) { request in
                try encoder.encode(parameters, into: &request)
            },
            to: destination)
    }

    /// Continues a download from its resume data (see ``DownloadResumeData``).
    ///
    /// Sends the request again with `Range: bytes=N-` and `If-Range: <validator>`, where N is
    /// the size of the partial file:
    /// - a `206` with the same strong validator whose `Content-Range` starts at N (and gives the
    ///   same total) appends to it, up to the range's end and no further;
    /// - a `200` — the server ignored the range, or the resource changed — starts it again
    ///   from empty, so no bytes of two versions are ever mixed;
    /// - a `416` saying the resource is N bytes long, as the first response said, finishes with
    ///   the file as it is; the response is reported as a `200` with that length;
    /// - a `206` with another validator (or none) fails with ``CurlewError/Kind/resumeFailed``
    ///   and removes the partial file, which belongs to a version the server no longer serves;
    /// - a `Content-Range` that starts elsewhere or gives another total, or a `416` with another
    ///   total, fails with ``CurlewError/Kind/resumeFailed`` and writes nothing (the partial file
    ///   stays as it was, and the error carries the resume data again);
    /// - a body that runs past its range fails with ``CurlewError/Kind/resumeFailed``; none of
    ///   its bytes is kept; a range that ends before the whole does too, keeping its bytes; both
    ///   give new resume data;
    /// - any other status is a response like any other: its body goes to a new file, and the
    ///   partial file is not touched.
    ///
    /// Stored resume data is untrusted input: a method other than GET, sizes that do not add
    /// up, or a validator that cannot be sent as `If-Range` fail with
    /// ``CurlewError/Kind/invalidRequest`` before anything is sent; a partial file other than
    /// the one Curlew names for `destination` (`.<name>.curlew-XXXXXX` in its folder) fails with
    /// ``CurlewError/Kind/invalidRequest``, and one that is a link, not a regular file, another
    /// user's, or linked elsewhere fails with ``CurlewError/Kind/resumeFailed`` — before a byte
    /// is written, leaving the file as it is.
    ///
    /// Resume data holds no credentials: the session adds its own again (credential store,
    /// interceptors, cookie storage, proxy). A password that was in the URL is given again with
    /// ``Request/authenticate(username:password:method:)`` or the credential store.
    ///
    /// On success the completed file moves to `destination`. Progress counts from N: the first
    /// event reports N bytes of the whole. A resumed download that fails again gives new resume
    /// data, so it can be resumed again.
    public nonisolated func download(
        resumingWith resumeData: DownloadResumeData, to destination: DownloadDestination,
        options: RequestOptions = RequestOptions()
    ) -> DownloadRequest {
        DownloadRequest(
            session: self, build: resumeData.resumingRequest(options: options), destination: destination,
            options: destination.options, resuming: resumeData)
    }

    /// A download whose query or body `encode` writes (parameters with an encoder, parameter
    /// sets), with headers in either form.
    nonisolated func download(_ build: Result<OutgoingRequest, CurlewError>, to destination: DownloadDestination) -> DownloadRequest {
        DownloadRequest(session: self, build: build, destination: destination, options: destination.options)
    }
}
