import Foundation

/// Decodes a stream of framed JSON records (JSON Lines / NDJSON, or RFC 7464 JSON text
/// sequences) into values as the bytes arrive, with bounded memory.
///
/// ```swift
/// for try await entry in session.request(logURL).bytes.decodeStream(LogEntry.self, framing: .jsonLines) {
///     print(entry.level, entry.message)
/// }
/// ```
///
/// Blank records are skipped. A record that does not decode ends the sequence with a
/// ``CurlewError/Kind/serializationFailed`` error naming its line, with the `DecodingError`
/// underneath; a record longer than the framing's maximum ends it with
/// ``CurlewError/Kind/bodyTooLarge``.
public struct JSONStreamDecodingSequence<Base: AsyncSequence, Element: Decodable>: AsyncSequence
where Base.Element == Data {
    /// The chunks.
    let base: Base
    /// How records are delimited.
    let framing: StreamFraming
    /// The decoder for each record.
    let decoder: JSONDecoder
    /// The URL named in errors, when known.
    let url: URL?

    /// Creates the sequence.
    init(
        _ base: Base, of type: Element.Type = Element.self, framing: StreamFraming = .jsonLines,
        decoder: JSONDecoder = JSONDecoder(), url: URL? = nil
    ) {
        self.base = base
        self.framing = framing
        self.decoder = decoder
        self.url = url
    }

    /// Returns an iterator over the decoded values.
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), framing: framing, decoder: decoder, url: url)
    }

    /// Produces the decoded values.
    public struct Iterator: AsyncIteratorProtocol {
        private var records: RecordIterator<Base.AsyncIterator>
        private let decoder: JSONDecoder
        private let recordName: String
        private var recordNumber = 0

        init(base: Base.AsyncIterator, framing: StreamFraming, decoder: JSONDecoder, url: URL?) {
            records = RecordIterator(
                base: base,
                framer: RecordFramer(terminator: framing.terminator, maximumLength: framing.maximumRecordLength),
                url: url)
            self.decoder = decoder
            self.recordName = framing.recordName
        }

        /// The next value, or nil at the end of the stream.
        public mutating func next() async throws -> Element? {
            while let record = try await records.next() {
                recordNumber += 1
                if JSONStreamDecodingSequence.isBlank(record) { continue }
                do {
                    if Element.self == JSON.self, let value = try JSON(parsing: record) as? Element {
                        return value  // the fast path for untyped records
                    }
                    return try decoder.decode(Element.self, from: record)
                } catch {
                    throw CurlewError(
                        .serializationFailed,
                        "\(recordName) \(recordNumber) of the stream is not a valid \(Element.self): \(error)",
                        url: records.url, underlying: error)
                }
            }
            return nil
        }
    }

    /// Whether a record holds only JSON whitespace.
    static func isBlank(_ record: Data) -> Bool {
        for byte in record where byte != 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D {
            return false
        }
        return true
    }
}

extension JSONStreamDecodingSequence: Sendable where Base: Sendable {}
