import CurlewXML
import Foundation
import Testing

@Suite("XMLElementStream")
struct XMLElementStreamTests {
    static let feed = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!-- leading comment -->
        <feed xmlns="urn:feed" xmlns:m="urn:media">
          <title>Not a record &amp; ignored</title>
          <item id="1" m:größe="groß"><title>Ünïcödé — 日本語 🎉</title><m:img src="a.png"/></item>
          <item id="2" note="x &amp; y &lt; &#38; &amp;#38; &#x41;"><title><![CDATA[<raw> & ]]>tail</title><!-- c --></item>
          <other><item id="3"><item id="3.1">nested</item></item></other>
          <item id="4">caf&#xE9; &lt;&amp; &#128640;<?pi data?></item>
        </feed>
        """

    /// The records as the tree parser sees them: the reference for every chunking.
    static func expectedRecords() throws -> [String] {
        let document = try XMLTree(string: feed)
        return try document.elements(matching: "//f:item[not(ancestor::f:item)]", namespaces: ["f": "urn:feed"])
            .map { $0.xmlString() }
    }

    static func records(_ chunks: ChunkedBytes) async throws -> [XMLTreeElement] {
        var records: [XMLTreeElement] = []
        for try await record in chunks.xmlElements(named: "item") { records.append(record) }
        return records
    }

    @Test func yieldsRecordsWhateverTheChunkBoundaries() async throws {
        let expected = try Self.expectedRecords()
        #expect(expected.count == 4)
        for sizes in [[1], [2], [3], [5], [7], [13], [64], [4096], [1, 2, 3, 50, 1]] {
            let records = try await Self.records(ChunkedBytes(Self.feed, sizes: sizes))
            // Each record is its own document; compare the root element's serialization
            // without the namespace declarations it inherits.
            #expect(records.map { Self.withoutInheritedNamespaces($0.xmlString()) } == expected.map(Self.withoutInheritedNamespaces),
                    "chunk sizes \(sizes)")
        }
    }

    @Test func everyTwoChunkSplitGivesTheSameRecords() async throws {
        let bytes = Array(Self.feed.utf8)
        let reference = try await Self.records(ChunkedBytes(Self.feed, sizes: [bytes.count])).map { $0.xmlString() }
        for split in 1..<bytes.count {
            let records = try await Self.records(ChunkedBytes(Self.feed, sizes: [split, bytes.count]))
            #expect(records.map { $0.xmlString() } == reference, "split at byte \(split)")
        }
    }

    static func withoutInheritedNamespaces(_ xml: String) -> String {
        xml.replacingOccurrences(of: " xmlns=\"urn:feed\"", with: "").replacingOccurrences(of: " xmlns:m=\"urn:media\"", with: "")
    }

    @Test func recordsCarryTextAttributesAndNamespaces() async throws {
        let records = try await Self.records(ChunkedBytes(Self.feed, sizes: [3]))
        #expect(records.map { $0.attribute("id") } == ["1", "2", "3", "4"])
        let first = records[0]
        #expect(first.namespaceURI == "urn:feed")
        #expect(first.firstElement(named: "title")?.text == "Ünïcödé — 日本語 🎉")
        #expect(first.attribute(localName: "größe", namespace: "urn:media") == "groß")
        let image = try #require(first.firstElement(localName: "img", namespace: "urn:media"))
        #expect(image.prefix == "m")
        #expect(image.attribute("src") == "a.png")
        #expect(try first.document.string(for: "/f:item/m:img/@src", namespaces: ["f": "urn:feed", "m": "urn:media"]) == "a.png")
        #expect(first.line == 5)
        #expect(records[1].attribute("note") == "x & y < & &#38; A")
        #expect(records[1].firstElement(named: "title")?.text == "<raw> & tail")
        #expect(records[1].children.contains { $0.kind == .comment })
        #expect(records[2].elements(named: "item").first?.text == "nested")
        #expect(records[3].text == "café <& 🚀")
        #expect(records[3].children.contains { $0.kind == .processingInstruction && $0.name == "pi" })
    }

    @Test func filtersByNamespace() async throws {
        let xml = "<r xmlns:a=\"urn:a\" xmlns:b=\"urn:b\"><a:x>1</a:x><b:x>2</b:x><x>3</x></r>"
        let inA = await collect(ChunkedBytes(xml, sizes: [4]).xmlElements(named: "x", namespace: "urn:a"))
        #expect(inA.elements.map(\.text) == ["1"])
        let any = await collect(ChunkedBytes(xml, sizes: [4]).xmlElements(named: "x"))
        #expect(any.elements.map(\.text) == ["1", "2", "3"])
        #expect(any.error == nil)
    }

    @Test func decodesRecords() async throws {
        struct Item: Decodable, Sendable, Equatable {
            let id: Int
            let name: String
            let tag: [String]
        }
        var xml = "<items>"
        for index in 0..<50 { xml += "<item id=\"\(index)\"><name>n\(index) ✓</name><tag>a</tag><tag>b\(index)</tag></item>" }
        xml += "</items>"
        let items = await collect(ChunkedBytes(xml, sizes: [97]).xmlElements(named: "item").decode(Item.self))
        #expect(items.error == nil)
        #expect(items.elements == (0..<50).map { Item(id: $0, name: "n\($0) ✓", tag: ["a", "b\($0)"]) })
    }

    @Test func malformedInputFailsAfterTheCompleteRecords() async throws {
        let xml = "<r>\n<item>1</item>\n<item>2</item>\n<item>3</oops>\n<item>4</item></r>"
        let result = await collect(ChunkedBytes(xml, sizes: [5]).xmlElements(named: "item"))
        #expect(result.elements.map(\.text) == ["1", "2"])
        let error = try #require(result.error as? XMLParseError)
        #expect(error.kind == .malformed)
        #expect(error.line == 4)
        #expect(error.description.hasPrefix("line 4, column "))
    }

    @Test func truncatedAndEmptyStreamsFail() async throws {
        let truncated = await collect(ChunkedBytes("<r><item>1</item><item>2", sizes: [4]).xmlElements(named: "item"))
        #expect(truncated.elements.map(\.text) == ["1"])
        #expect(truncated.error is XMLParseError)
        let empty = await collect(ChunkedBytes("", sizes: [1]).xmlElements(named: "item"))
        #expect((empty.error as? XMLParseError)?.description == "line 1, column 1: the XML stream is empty")
    }

    @Test func oversizedRecordsFail() async throws {
        let big = String(repeating: "x", count: 5000)
        let xml = "<r><item>small</item><item>\(big)</item><item>later</item></r>"
        let result = await collect(ChunkedBytes(xml, sizes: [512]).xmlElements(named: "item", maximumRecordSize: 4096))
        #expect(result.elements.map(\.text) == ["small"])
        let error = try #require(result.error as? XMLParseError)
        #expect(error.kind == .recordTooLarge)
        #expect(error.message.contains("4096"))
        // Text outside records is never kept, so it does not count.
        let outside = "<r><skip>\(big)</skip><item>ok</item></r>"
        let fine = await collect(ChunkedBytes(outside, sizes: [512]).xmlElements(named: "item", maximumRecordSize: 4096))
        #expect(fine.elements.map(\.text) == ["ok"])
        #expect(fine.error == nil)
    }

    @Test func honoursAnEncodingOverride() async throws {
        var bytes = Array("<r><item>caf".utf8)
        bytes.append(0xE9)
        bytes.append(contentsOf: Array("</item></r>".utf8))
        let chunks = AsyncStream<[UInt8]> { continuation in
            for byte in bytes { continuation.yield([byte]) }
            continuation.finish()
        }
        let result = await collect(chunks.xmlElements(named: "item", encoding: "ISO-8859-1"))
        #expect(result.elements.map(\.text) == ["café"])
        #expect(result.error == nil)
        // A declared encoding is followed when there is no override.
        var declared = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><r><item>caf".utf8)
        declared.append(0xE9)
        declared.append(contentsOf: Array("</item></r>".utf8))
        let declaredChunks = AsyncStream<[UInt8]> { continuation in
            continuation.yield(Array(declared[..<20]))
            continuation.yield(Array(declared[20...]))
            continuation.finish()
        }
        let latin1 = await collect(declaredChunks.xmlElements(named: "item"))
        #expect(latin1.elements.map(\.text) == ["café"])
        let unknown = await collect(ChunkedBytes("<r/>", sizes: [1]).xmlElements(named: "item", encoding: "nope-8"))
        #expect((unknown.error as? XMLParseError)?.kind == .unsupportedEncoding)
    }

    /// libxml2 detects a document's encoding from its first four bytes (a byte order mark, or
    /// `<?` in UTF-16 or UCS-4); those must reach it together however the body is sliced, or
    /// the document is read as UTF-8 and fails on its first NUL byte.
    /// (libxml2 2.9 reads no UCS-4 document whole, so there is no reference to compare with.)
    @Test(arguments: ["UTF-16BE BOM", "UTF-16LE BOM", "UTF-16BE", "UTF-16LE"])
    func encodingDetectionDoesNotDependOnTheSlicing(_ form: String) async throws {
        let withBOM = form.hasSuffix(" BOM")
        let declaration = withBOM ? "" : "<?xml version=\"1.0\" encoding=\"UTF-16\"?>"
        let text = (withBOM ? "\u{FEFF}" : "") + declaration + "<r><item>caf\u{E9}</item><item>2</item></r>"
        let bytes: [UInt8]
        if form.hasPrefix("UTF-16BE") {
            bytes = text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        } else {
            bytes = text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        }
        // The reference: libxml2 reads the whole document this way.
        let tree = try XMLTree(data: Data(bytes))
        #expect(tree.root.children.map(\.text) == ["caf\u{E9}", "2"])
        for size in [1, 2, 3, 4, 5, bytes.count] {
            let chunks = AsyncStream<[UInt8]> { continuation in
                var offset = 0
                while offset < bytes.count {
                    continuation.yield(Array(bytes[offset..<min(bytes.count, offset + size)]))
                    offset += size
                }
                continuation.finish()
            }
            let result = await collect(chunks.xmlElements(named: "item"))
            #expect(result.error == nil, "\(form) in chunks of \(size): \(String(describing: result.error))")
            #expect(result.elements.map(\.text) == ["caf\u{E9}", "2"], "\(form) in chunks of \(size)")
        }
    }

    /// Found by fuzzing: documents that begin with one of libxml2's UCS-4 patterns, which
    /// libxml2 2.9 cannot convert, failed or passed depending on the first chunk. They are
    /// refused up front (the reference parse of the whole document fails too).
    @Test(arguments: [
        [0, 0, 0, 0x3C] + [UInt8](repeating: 0, count: 70) + [0x3C, 0x3C, 0x3C, 0x3C],
        [0, 0, 0, 0x3C] + [UInt8](repeating: 0x3C, count: 56) + [0x4C, 0x3C, 0x00, 0x02, 0x01, 0x00],
        [0x3C, 0, 0, 0] + [UInt8](repeating: 0x41, count: 20),
    ] as [[UInt8]])
    func undecodableDocumentsFailHoweverSliced(_ bytes: [UInt8]) async throws {
        var outcomes: [String] = []
        var kinds: [XMLParseError.Kind?] = []
        for size in [bytes.count, 1, 2, 3, 5] {
            let chunks = AsyncStream<[UInt8]> { continuation in
                var offset = 0
                while offset < bytes.count {
                    continuation.yield(Array(bytes[offset..<min(bytes.count, offset + size)]))
                    offset += size
                }
                continuation.finish()
            }
            let result = await collect(chunks.xmlElements(named: "item"))
            outcomes.append("\(size): \(result.elements.count) records, \(String(describing: result.error))")
            kinds.append(result.elements.isEmpty ? (result.error as? XMLParseError)?.kind : nil)
        }
        #expect(kinds == Array(repeating: .unsupportedEncoding, count: 5), "\(outcomes)")
        #expect(throws: XMLParseError.self) { try XMLTree(data: Data(bytes)) }
    }

    @Test func yieldsEveryRecordOfTheLastChunk() async throws {
        let xml = "<r>" + String(repeating: "<item/>", count: 3000) + "</r>"
        let result = await collect(ChunkedBytes(xml, sizes: [xml.utf8.count]).xmlElements(named: "item"))
        #expect(result.elements.count == 3000)
        #expect(result.error == nil)
        let tail = await collect(ChunkedBytes("<item>only</item>", sizes: [100]).xmlElements(named: "item"))
        #expect(tail.elements.map(\.text) == ["only"])
    }

    @Test func upstreamErrorsPassThrough() async throws {
        struct Upstream: Error {}
        let chunks = AsyncThrowingStream<Data, any Error> { continuation in
            continuation.yield(Data("<r><item>1</item><item>".utf8))
            continuation.finish(throwing: Upstream())
        }
        let result = await collect(chunks.xmlElements(named: "item"))
        #expect(result.elements.map(\.text) == ["1"])
        #expect(result.error is Upstream)
    }
}
