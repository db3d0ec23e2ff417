/// How a byte stream is cut into JSON records for ``JSONStreamDecodingSequence``.
///
/// ```swift
/// for try await entry in session.request(url).decodeStream(LogEntry.self, framing: .jsonLines) { … }
/// ```
public struct StreamFraming: Sendable, Hashable {
    enum Delimiter: Sendable, Hashable {
        case newline
        case recordSeparator
    }

    let delimiter: Delimiter
    /// The longest record accepted, in bytes; a longer one fails the stream with
    /// ``CurlewError/Kind/bodyTooLarge``.
    public let maximumRecordLength: Int

    /// The default longest record: 8 MiB.
    static let defaultMaximumRecordLength = 8 * 1024 * 1024

    /// JSON Lines / NDJSON: one JSON value per line, lines ending in LF or CRLF. Blank lines
    /// are skipped.
    public static let jsonLines = StreamFraming(delimiter: .newline, maximumRecordLength: defaultMaximumRecordLength)

    /// JSON text sequences (RFC 7464, `application/json-seq`): each value follows an ASCII
    /// record separator (0x1E). Empty records are skipped.
    public static let jsonTextSequence = StreamFraming(
        delimiter: .recordSeparator, maximumRecordLength: defaultMaximumRecordLength)

    /// This framing with another maximum record length (8 MiB by default), as in
    /// `.jsonLines.maximumRecordLength(64 << 10)`.
    public func maximumRecordLength(_ length: Int) -> StreamFraming {
        StreamFraming(delimiter: delimiter, maximumRecordLength: length)
    }

    var terminator: RecordFramer.Terminator {
        switch delimiter {
        case .newline: return .newline
        case .recordSeparator: return .byte(0x1E)
        }
    }

    var recordName: String {
        switch delimiter {
        case .newline: return "line"
        case .recordSeparator: return "record"
        }
    }
}
