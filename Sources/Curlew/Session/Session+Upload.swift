import Foundation
import HTTPTypes

extension Session {
    /// Uploads `body` with a POST (or `method`) request: bytes, a file, a multipart form, or a
    /// stream.
    ///
    /// ```swift
    /// let receipt = try await session.upload(.data(png), to: "https://api.example.com/avatar", method: .put)
    ///     .validate()
    ///     .decode(Receipt.self)
    /// let reply = try await session.upload(.multipart(form), to: url).validate().data()
    /// let stored = try await session.upload(.file(archive), to: url).validate().data()
    /// ```
    ///
    /// A file is read as it is sent, never held in memory whole, and the request carries its
    /// `Content-Type` (from its extension) unless `headers` or the session's default headers set one; a form sets its own
    /// `Content-Type` with its boundary (see ``RequestBody/contentType``). Upload progress
    /// arrives in ``Request/events`` as ``TransferEvent/uploadProgress(_:)``. Bytes, files,
    /// forms and streams made by a factory can be sent again on a retry or a 307/308 redirect;
    /// a one-shot stream fails such an attempt with ``CurlewError/Kind/bodyNotReplayable``.
    public nonisolated func upload(
        _ body: RequestBody, to url: some URLConvertible, method: HTTPRequest.Method = .post,
        headers: RequestHeaders = [:], options: RequestOptions = RequestOptions()
    ) -> DataRequest {
        request(url, method: method, headers: headers, body: body, options: options)
    }
}
