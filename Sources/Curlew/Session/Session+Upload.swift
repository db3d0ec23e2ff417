import Foundation
import HTTPTypes

extension Session {
    /// Uploads `data` with a POST (or `method`) request.
    ///
    /// ```swift
    /// let receipt = try await session.upload(png, to: "https://api.example.com/avatar", method: .put)
    ///     .validate()
    ///     .decode(Receipt.self)
    /// ```
    ///
    /// Upload progress arrives in ``Request/events`` as ``TransferEvent/uploadProgress(_:)``.
    /// The body can be sent again on a retry or a 307/308 redirect.
    public nonisolated func upload(
        _ data: Data, to url: some URLConvertible, method: HTTPRequest.Method = .post, headers: HTTPFields = HTTPFields(),
        options: RequestOptions = RequestOptions()
    ) -> DataRequest {
        request(url, method: method, headers: headers, body: .data(data), options: options)
    }

    /// Uploads the file at `fileURL`, read as it is sent (never held in memory whole), with a
    /// POST (or `method`) request. A file that cannot be opened fails the request with
    /// ``CurlewError/Kind/invalidRequest`` when it is consumed. Without a `Content-Type` in
    /// `headers` (or the session's default headers) the type comes from the file's extension,
    /// as for multipart file parts (``MIMEType/forFileName(_:)``; `application/octet-stream`
    /// when unknown).
    public nonisolated func upload(
        fileAt fileURL: URL, to url: some URLConvertible, method: HTTPRequest.Method = .post,
        headers: HTTPFields = HTTPFields(), options: RequestOptions = RequestOptions()
    ) -> DataRequest {
        request(url, method: method, headers: headers, body: .file(fileURL), options: options)
    }

    /// Uploads an asynchronous sequence of byte chunks, read with backpressure as libcurl sends
    /// them, with a POST (or `method`) request; sent chunked when `length` is nil.
    ///
    /// The sequence is read once: a retry or a redirect that must send the body again fails
    /// with ``CurlewError/Kind/bodyNotReplayable``. To allow them, upload a
    /// ``RequestBody/stream(length:_:)`` body, whose factory makes the sequence afresh for each
    /// attempt, with the `RequestBody` overload of `upload`.
    public nonisolated func upload<S: AsyncSequence & Sendable>(
        _ stream: S, length: Int64? = nil, to url: some URLConvertible, method: HTTPRequest.Method = .post,
        headers: HTTPFields = HTTPFields(), options: RequestOptions = RequestOptions()
    ) -> DataRequest where S.Element: Collection<UInt8> & Sendable {
        request(url, method: method, headers: headers, body: .stream(stream, length: length), options: options)
    }

    /// Uploads a Foundation `InputStream`, read off the session's thread, with a POST (or
    /// `method`) request; sent chunked when `length` is nil. The stream is read once; see
    /// ``RequestBody/inputStream(_:length:)``.
    public nonisolated func upload(
        _ stream: InputStream, length: Int64? = nil, to url: some URLConvertible, method: HTTPRequest.Method = .post,
        headers: HTTPFields = HTTPFields(), options: RequestOptions = RequestOptions()
    ) -> DataRequest {
        request(url, method: method, headers: headers, body: .inputStream(stream, length: length), options: options)
    }

    /// Uploads any ``RequestBody`` — for example a stream with a factory, which retries and
    /// redirects can send again — with a POST (or `method`) request.
    public nonisolated func upload(
        _ body: RequestBody, to url: some URLConvertible, method: HTTPRequest.Method = .post,
        headers: HTTPFields = HTTPFields(), options: RequestOptions = RequestOptions()
    ) -> DataRequest {
        request(url, method: method, headers: headers, body: body, options: options)
    }
}
