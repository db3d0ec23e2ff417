import Foundation

/// The Server-Sent Events of a stream of byte chunks (`text/event-stream`), parsed under the
/// WHATWG HTML rules, with bounded memory.
///
/// ```swift
/// for try await event in session.request(feedURL).bytes.serverSentEvents {
///     print(event.event, event.data, event.id ?? "-")
/// }
/// ```
///
/// The rules, in short: lines end with CRLF, LF or CR; a leading byte order mark is dropped;
/// lines starting with `:` are comments; `field: value` loses one space after the colon;
/// several `data:` lines join with LF; a blank line dispatches the event unless it had no
/// data; `id:` values with NUL and non-numeric `retry:` values are ignored; an event not ended
/// by a blank line when the stream ends is dropped. Unknown fields are ignored.
///
/// An event larger than the maximum (1 MiB, or what `serverSentEvents(maximumEventLength:)`
/// gives) ends the sequence with
/// ``CurlewError/Kind/bodyTooLarge``. Invalid UTF-8 is replaced with U+FFFD, as the
/// standard requires.
public struct ServerSentEventSequence<Base: AsyncSequence>: AsyncSequence where Base.Element == Data {
    /// The default largest event: 1 MiB.
    static var defaultMaximumEventLength: Int { 1024 * 1024 }

    /// The chunks.
    let base: Base
    /// The largest event (and line) accepted, in bytes.
    let maximumEventLength: Int
    /// The URL named in errors, when known.
    let url: URL?

    /// Creates the sequence.
    init(_ base: Base, maximumEventLength: Int = defaultMaximumEventLength, url: URL? = nil) {
        self.base = base
        self.maximumEventLength = maximumEventLength
        self.url = url
    }

    /// Returns an iterator over the events.
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), maximumEventLength: maximumEventLength, url: url)
    }

    /// Produces the events.
    public struct Iterator: AsyncIteratorProtocol {
        private var lines: RecordIterator<Base.AsyncIterator>
        private var parser: ServerSentEventParser

        init(base: Base.AsyncIterator, maximumEventLength: Int, url: URL?) {
            lines = RecordIterator(
                base: base, framer: RecordFramer(terminator: .anyNewline, maximumLength: maximumEventLength),
                url: url)
            parser = ServerSentEventParser(maximumEventLength: maximumEventLength)
        }

        /// The next event, or nil at the end of the stream.
        public mutating func next() async throws -> ServerSentEvent? {
            while let line = try await lines.next() {
                do {
                    if let event = try parser.process(line: line) { return event }
                } catch {
                    throw error.adding(url: lines.url)
                }
            }
            return nil
        }
    }
}

extension ServerSentEventSequence: Sendable where Base: Sendable {}
