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
