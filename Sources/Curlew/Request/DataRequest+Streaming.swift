import Foundation
import HTTPTypes

extension DataRequest {
    /// The body as lines (LF or CRLF), with bounded memory; a line over 1 MiB is an error.
    public var lines: LineSequence<ByteStream> {
        bytes.lines(maximumLineLength: LineSequence<ByteStream>.defaultMaximumLineLength, url: core.url)
    }

    /// The body as a stream of `T` records, framed as JSON Lines (NDJSON) by default.
    ///
    /// ```swift
    /// for try await entry in session.request(logURL).decodeStream(LogEntry.self, framing: .jsonLines) { … }
    /// ```
    public func decodeStream<T: Decodable>(
        _ type: T.Type, framing: StreamFraming = .jsonLines, decoder: JSONDecoder = JSONDecoder()
    ) -> JSONStreamDecodingSequence<ByteStream, T> {
        bytes.decodeStream(type, framing: framing, decoder: decoder, url: core.url)
    }

    /// The body as Server-Sent Events (`text/event-stream`, WHATWG rules); an event over
    /// 1 MiB is an error.
    public var serverSentEvents: ServerSentEventSequence<ByteStream> {
        bytes.serverSentEvents(maximumEventLength: 1 << 20, url: core.url)
    }

    /// Accepts status 200..<300; any other response is decoded as `E` from its JSON body and
    /// thrown as a ``CurlewError`` of kind ``CurlewError/Kind/unacceptableStatus`` whose
    /// `underlying` is the `E` (read it with `error.apiError(as: E.self)`).
    @discardableResult
    public func validate<E: Decodable & Error>(errorType: E.Type, decoder: JSONDecoder = JSONDecoder()) -> Self {
        let errorDecoder = APIErrorDecoder(E.self, decoder: decoder)
        return validate { request, head, body in
            guard (200..<300).contains(head.status.code) else {
                throw errorDecoder.error(url: request.url, head: head, body: body)
            }
        }
    }
}

extension DataRequest {
    /// Starts the request, waits for the response head, and hands over the body as a stream.
    ///
    /// Meant for code that needs the status and header fields before the body, whatever the
    /// status — such as an OpenAPI transport. Every attempt is adapted by the interceptors, and
    /// the retriers (``RetryPolicy``, ``OAuth2Authenticator``) see failures up to the head: a
    /// transport failure, a validation that rejected the head, and any status of 400 or more. A
    /// retry cancels that attempt; when no retrier asks for one, a 4xx or 5xx response is
    /// returned, not thrown (add `validate()` to throw). The body is never retried. Cancelling
    /// the calling task while waiting cancels the request.
    ///
    /// ```swift
    /// let response = try await session.request(url).streamedResponse()
    /// guard response.status == .ok else { … }
    /// for try await chunk in response.body { try await sink.write(chunk) }
    /// ```
    public func streamedResponse() async throws(CurlewError) -> StreamedResponse {
        let core = core
        let result = await withTaskCancellationHandler { () async -> Result<(head: HTTPResponse, transfer: Transfer), CurlewError> in
            do throws(CurlewError) { return .success(try await core.startStreamedResponse()) } catch { return .failure(error) }
        } onCancel: {
            core.cancel(.taskCancelled, "the task awaiting the response was cancelled")
        }
        let (head, transfer) = try result.get()
        return StreamedResponse(head: head, body: ByteStream(core: core, started: transfer), url: core.url)
    }
}
