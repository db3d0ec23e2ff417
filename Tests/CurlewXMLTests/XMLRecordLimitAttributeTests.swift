import CurlewXML
import Foundation
import Testing

/// Regression tests for a heap use-after-free found by the `xmlrecords` fuzz target (Fuzz/):
/// when an element pushed its record past `maximumRecordSize`, the parser stopped libxml2
/// (which frees its input buffer) and then still read that element's attribute values, which
/// point into that buffer. AddressSanitizer (`swift test --sanitize=address`) reports the
/// read; without it these tests check that the stream fails as documented.
@Suite("XMLElementStream: the record limit and attributes")
struct XMLRecordLimitAttributeTests {
    @Test func anElementOverTheLimitIsNotReadFurther() async throws {
        // <item> (68 counted bytes), <b/> and <c/> (65 each), then <d …/> passes 200.
        let xml = #"<r><item><b/><c/><d x="value-one" y="value-two"/></item><item>later</item></r>"#
        for sizes in [[xml.utf8.count], [1], [7]] {
            let result = await collect(ChunkedBytes(xml, sizes: sizes).xmlElements(named: "item", maximumRecordSize: 200))
            #expect(result.elements.isEmpty, "chunk sizes \(sizes)")
            let error = try #require(result.error as? XMLParseError)
            #expect(error.kind == .recordTooLarge)
        }
    }

    @Test func anAttributeOverTheLimitStopsTheOthers() async throws {
        // <item> counts 68 bytes and its first attribute 76: over 140 before the second.
        let xml = #"<r><item a="0123456789" b="second value" c="third value">x</item></r>"#
        for sizes in [[xml.utf8.count], [3]] {
            let result = await collect(ChunkedBytes(xml, sizes: sizes).xmlElements(named: "item", maximumRecordSize: 140))
            #expect(result.elements.isEmpty, "chunk sizes \(sizes)")
            let error = try #require(result.error as? XMLParseError)
            #expect(error.kind == .recordTooLarge)
        }
    }
}
