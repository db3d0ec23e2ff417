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
