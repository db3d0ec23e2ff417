/// The elements of one name from an XML document that arrives in chunks, each yielded as soon
/// as its end tag has been read.
///
/// ```swift
/// for try await item in session.request(feedURL).bytes.xmlElements(named: "item") {
///     print(item.firstElement(named: "title")?.text ?? "")
/// }
/// for try await entry in chunks.xmlElements(named: "entry", namespace: atom).decode(Entry.self) { … }
/// ```
///
/// Each yielded element is the root of its own small ``XMLTree``: it can be kept, queried
/// with XPath or decoded after later ones arrive. Only top-level occurrences are records: an
/// `<item>` nested inside an `<item>` stays part of the outer record.
///
/// **Bounded memory.** Nothing outside the records is kept, and the input is fed to libxml2's
/// push parser in slices of at most 8 KiB, so however large the document, memory stays
/// around one record plus libxml2's look-ahead. A record whose names and text pass
/// `maximumRecordSize` fails with ``XMLParseError/Kind/recordTooLarge``.
///
/// **Safety.** As for ``XMLTree``: no network, no DTD or external entity loading. Entity
/// declarations are rejected (``XMLParseError/Kind/unsupportedDeclaration``), so entity
/// expansion attacks cannot start.
///
/// **Errors.** Malformed input throws ``XMLParseError`` with the line and column, after the
/// records that were complete before it. After an error, the iterator returns nil.
public struct XMLElementStream<Base: AsyncSequence>: AsyncSequence where Base.Element: Collection<UInt8> {
    /// Each record: the root element of a small document.
    public typealias Element = XMLTreeElement

    /// The largest slice of input handed to libxml2 at once.
    static var sliceSize: Int { 8 * 1024 }

    private let base: Base
    private let localName: String
    private let namespace: String?
    private let maximumRecordSize: Int
    private let encoding: String?

    /// Creates a stream; see `AsyncSequence.xmlElements(named:namespace:maximumRecordSize:encoding:)`.
    public init(
        _ base: Base, localName: String, namespace: String? = nil, maximumRecordSize: Int = 1 << 20,
        encoding: String? = nil
    ) {
        self.base = base
        self.localName = localName
        self.namespace = namespace
        self.maximumRecordSize = maximumRecordSize
        self.encoding = encoding
    }

    public func makeAsyncIterator() -> Iterator {
        let parser = Result { () throws(XMLParseError) in
            try XMLRecordParser(
                localName: localName, namespace: namespace, maximumRecordSize: maximumRecordSize, encoding: encoding)
        }
        return Iterator(base: base.makeAsyncIterator(), parser: parser)
    }

    /// Iterates the records; owned by one task.
    public struct Iterator: AsyncIteratorProtocol {
        private var base: Base.AsyncIterator
        private let parser: Result<XMLRecordParser, XMLParseError>
        /// The chunk being fed, when it offers contiguous storage; otherwise a copy.
        private var chunk: Base.Element?
        private var chunkCopy: [UInt8]?
        private var offset = 0
        /// The input has ended and libxml2 has been told so.
        private var finished = false
        /// An error was thrown; the iteration is over.
        private var failed = false

        init(base: Base.AsyncIterator, parser: Result<XMLRecordParser, XMLParseError>) {
            self.base = base
            self.parser = parser
        }

        /// The next record, nil at the end of the document.
        ///
        /// - Throws: ``XMLParseError`` for malformed or hostile input or a record that is too
        ///   large, or the error of the underlying sequence.
        public mutating func next() async throws -> XMLTreeElement? {
            guard !failed else { return nil }
            do {
                let parser = try self.parser.get()
                while true {
                    if let record = parser.takeRecord() { return record }
                    if finished { return nil }
                    if try feedSlice(to: parser) { continue }
                    guard let next = try await base.next() else {
                        // The last records may complete only once libxml2 knows the input ended.
                        finished = true
                        try parser.finish()
                        continue
                    }
                    start(next)
                }
            } catch {
                failed = true
                throw error
            }
        }

        private mutating func start(_ next: Base.Element) {
            offset = 0
            if next.withContiguousStorageIfAvailable({ _ in true }) == true {
                chunk = next
                chunkCopy = nil
            } else {
                chunk = nil
                chunkCopy = Array(next)
            }
        }

        /// Feeds the next slice of the current chunk; false when the chunk is used up.
        private mutating func feedSlice(to parser: XMLRecordParser) throws(XMLParseError) -> Bool {
            let start = offset
            let fed: Result<Int, XMLParseError>?
            if let chunkCopy {
                fed = chunkCopy.withUnsafeBytes { Self.feed($0, from: start, to: parser) }
            } else if let chunk {
                fed = chunk.withContiguousStorageIfAvailable { buffer in
                    Self.feed(UnsafeRawBufferPointer(buffer), from: start, to: parser)
                }
            } else {
                fed = nil
            }
            guard let fed else { return false }
            let count = try fed.get()
            if count == 0 {
                chunk = nil
                chunkCopy = nil
                return false
            }
            offset += count
            return true
        }

        private static func feed(_ bytes: UnsafeRawBufferPointer, from start: Int, to parser: XMLRecordParser)
            -> Result<Int, XMLParseError>
        {
            let count = Swift.min(XMLElementStream.sliceSize, bytes.count - start)
            guard count > 0 else { return .success(0) }
            return Result { () throws(XMLParseError) in
                try parser.feed(UnsafeRawBufferPointer(rebasing: bytes[start..<(start + count)]))
                return count
            }
        }
    }
}

extension XMLElementStream: Sendable where Base: Sendable {}

extension XMLElementStream {
    /// Decodes each record with an ``XMLTreeDecoder``.
    public func decode<T: Decodable & Sendable>(_ type: T.Type, decoder: XMLTreeDecoder = XMLTreeDecoder())
        -> AsyncThrowingMapSequence<Self, T>
    {
        map { element in try decoder.decode(T.self, from: element) }
    }
}

extension AsyncSequence where Element: Collection<UInt8> {
    /// The elements named `localName` (in `namespace`, when not nil) of the XML document
    /// whose bytes this sequence yields in chunks, each yielded as soon as it is complete.
    ///
    /// - Parameters:
    ///   - localName: The local name of the record elements, for example `"item"`.
    ///   - namespace: The namespace URI the records must be in; nil accepts any.
    ///   - maximumRecordSize: The most bytes of names, attribute values and text one record
    ///     may hold. Default: 1 MiB.
    ///   - encoding: An encoding that overrides the document's declaration, for example the
    ///     `charset` of the response's `Content-Type`.
    public func xmlElements(
        named localName: String, namespace: String? = nil, maximumRecordSize: Int = 1 << 20, encoding: String? = nil
    ) -> XMLElementStream<Self> {
        XMLElementStream(
            self, localName: localName, namespace: namespace, maximumRecordSize: maximumRecordSize, encoding: encoding)
    }
}
