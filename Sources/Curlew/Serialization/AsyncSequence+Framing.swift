import Foundation

/// Framed views of a stream of byte chunks, such as a request's `bytes`.
extension AsyncSequence where Element == Data {
    /// The lines of this stream of chunks (see ``LineSequence``).
    public var lines: LineSequence<Self> { LineSequence(self) }

    /// The lines of this stream of chunks, with a given maximum line length in bytes.
    public func lines(maximumLineLength: Int, url: URL? = nil) -> LineSequence<Self> {
        LineSequence(self, maximumLineLength: maximumLineLength, url: url)
    }

    /// The values of type `type` decoded from framed JSON records in this stream (see
    /// ``JSONStreamDecodingSequence``).
    public func decodeStream<T: Decodable>(
        _ type: T.Type, framing: StreamFraming = .jsonLines, decoder: JSONDecoder = JSONDecoder(), url: URL? = nil
    ) -> JSONStreamDecodingSequence<Self, T> {
        JSONStreamDecodingSequence(self, of: type, framing: framing, decoder: decoder, url: url)
    }

    /// The Server-Sent Events in this stream (see ``ServerSentEventSequence``).
    public var serverSentEvents: ServerSentEventSequence<Self> { ServerSentEventSequence(self) }

    /// The Server-Sent Events in this stream, with a given maximum event size in bytes.
    public func serverSentEvents(maximumEventLength: Int, url: URL? = nil) -> ServerSentEventSequence<Self> {
        ServerSentEventSequence(self, maximumEventLength: maximumEventLength, url: url)
    }
}
