import Foundation

/// The lines of a stream of byte chunks, as `String`s, with bounded memory.
///
/// Lines end with LF or CRLF; the terminator is not part of the line. A last line without a
/// terminator is still returned. A UTF-8 byte order mark at the start is dropped.
///
/// ```swift
/// for try await line in session.request(logURL).bytes.lines { print(line) }
/// ```
///
/// Memory stays bounded: at most one chunk and one partial line are held. A line longer than
/// the maximum (1 MiB, or what `lines(maximumLineLength:)` gives) fails with
/// ``CurlewError/Kind/bodyTooLarge``, and a line that is not valid UTF-8 with
/// ``CurlewError/Kind/serializationFailed``.
public struct LineSequence<Base: AsyncSequence>: AsyncSequence where Base.Element == Data {
    /// The default longest line: 1 MiB.
    static var defaultMaximumLineLength: Int { 1024 * 1024 }

    /// The chunks.
    let base: Base
    /// The longest line accepted, in bytes.
    let maximumLineLength: Int
    /// The URL named in errors, when known.
    let url: URL?

    /// Creates the sequence.
    init(_ base: Base, maximumLineLength: Int = defaultMaximumLineLength, url: URL? = nil) {
        self.base = base
        self.maximumLineLength = maximumLineLength
        self.url = url
    }

    /// Returns an iterator over the lines.
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), maximumLineLength: maximumLineLength, url: url)
    }

    /// Produces the lines.
    public struct Iterator: AsyncIteratorProtocol {
        private var records: RecordIterator<Base.AsyncIterator>
        private var lineNumber = 0

        init(base: Base.AsyncIterator, maximumLineLength: Int, url: URL?) {
            records = RecordIterator(
                base: base, framer: RecordFramer(terminator: .newline, maximumLength: maximumLineLength), url: url)
        }

        /// The next line, or nil at the end of the stream.
        public mutating func next() async throws -> String? {
            guard let record = try await records.next() else { return nil }
            lineNumber += 1
            guard let line = String(validating: record, as: UTF8.self) else {
                throw CurlewError(
                    .serializationFailed, "line \(lineNumber) of the stream is not valid UTF-8", url: records.url)
            }
            return line
        }
    }
}

extension LineSequence: Sendable where Base: Sendable {}
