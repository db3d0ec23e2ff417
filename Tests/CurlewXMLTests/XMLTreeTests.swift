import CurlewXML
import Foundation
import Testing

#if canImport(FoundationXML)
    import FoundationXML

    /// Compiles only if CurlewXML's names do not clash with FoundationXML's when both are
    /// imported: `XMLDocument` must still mean Foundation's.
    private func foundationXMLStillResolves() throws -> (XMLDocument, XMLTree) {
        (try XMLDocument(xmlString: "<a/>"), try XMLTree(string: "<a/>"))
    }
#endif

@Suite("XMLTree")
struct XMLTreeTests {
    static let atom = """
        <?xml version="1.0" encoding="UTF-8"?>
        <feed xmlns="http://www.w3.org/2005/Atom" xmlns:media="http://search.yahoo.com/mrss/" xml:lang="en">
          <title type="text">Example &amp; Co</title>
          <entry id="1">
            <title>Första – 日本語 🎉</title>
            <link href="https://example.com/1" rel="alternate"/>
            <media:thumbnail url="https://example.com/1.jpg" media:width="120"/>
          </entry>
          <entry id="2">
            <title><![CDATA[Second <b>bold</b>]]></title>
            <link href="https://example.com/2"/>
          </entry>
          <!-- a comment -->
        </feed>
        """
    static let atomURI = "http://www.w3.org/2005/Atom"
    static let mediaURI = "http://search.yahoo.com/mrss/"

    @Test func navigatesTheTree() throws {
        let document = try XMLTree(string: Self.atom)
        let root = document.root
        #expect(root.name == "feed")
        #expect(root.localName == "feed")
        #expect(root.prefix == nil)
        #expect(root.namespaceURI == Self.atomURI)
        #expect(document.version == "1.0")
        #expect(root.childElements.map(\.name) == ["title", "entry", "entry"])
        #expect(root.elements(named: "entry").count == 2)
        #expect(root.parent == nil)
        let entry = try #require(root.firstElement(named: "entry"))
        #expect(entry.parent == root)
        #expect(entry.attribute("id") == "1")
        #expect(entry.line == 4)
        #expect(root.children.contains { $0.kind == .comment && $0.text == " a comment " })
        #expect(root.children.contains { $0.kind == .text })
    }

    @Test func readsTextAttributesAndUnicode() throws {
        let document = try XMLTree(string: Self.atom)
        let root = document.root
        #expect(root.firstElement(named: "title")?.text == "Example & Co")
        #expect(root.firstElement(named: "title")?.attribute("type") == "text")
        let entries = root.elements(named: "entry")
        #expect(entries[0].firstElement(named: "title")?.text == "Första – 日本語 🎉")
        #expect(entries[1].firstElement(named: "title")?.text == "Second <b>bold</b>")
        #expect(entries[1].firstElement(named: "title")?.children.first?.kind == .cdata)
        let link = try #require(entries[0].firstElement(named: "link"))
        #expect(link.attributes.map(\.name) == ["href", "rel"])
        #expect(link.attributes.allSatisfy { $0.namespaceURI == nil })
        #expect(link.attribute("missing") == nil)
        #expect(root.attribute("xml:lang") == "en")
        #expect(root.attribute(localName: "lang", namespace: "http://www.w3.org/XML/1998/namespace") == "en")
    }

    @Test func exposesNamespaces() throws {
        let root = try XMLTree(string: Self.atom).root
        #expect(Set(root.namespaceDeclarations) == [
            XMLTreeNamespace(prefix: nil, uri: Self.atomURI), XMLTreeNamespace(prefix: "media", uri: Self.mediaURI),
        ])
        let entry = try #require(root.firstElement(named: "entry"))
        let thumbnail = try #require(entry.firstElement(named: "media:thumbnail"))
        #expect(thumbnail.prefix == "media")
        #expect(thumbnail.localName == "thumbnail")
        #expect(thumbnail.namespaceURI == Self.mediaURI)
        #expect(entry.firstElement(localName: "thumbnail", namespace: Self.mediaURI) == thumbnail)
        #expect(entry.firstElement(localName: "thumbnail", namespace: Self.atomURI) == nil)
        #expect(thumbnail.attribute(localName: "width", namespace: Self.mediaURI) == "120")
        #expect(thumbnail.attributes.first { $0.localName == "width" }?.prefix == "media")
        #expect(thumbnail.namespaceURI(forPrefix: "media") == Self.mediaURI)
        #expect(thumbnail.namespaceURI(forPrefix: nil) == Self.atomURI)
        #expect(thumbnail.namespaceURI(forPrefix: "nope") == nil)
    }

    @Test func queriesWithXPathAndPrefixes() throws {
        let document = try XMLTree(string: Self.atom)
        let ns = ["a": Self.atomURI, "m": Self.mediaURI]
        let entries = try document.nodes(matching: "//a:entry", namespaces: ns)
        #expect(entries.count == 2)
        #expect(entries.allSatisfy { $0.kind == .element && $0.localName == "entry" })
        // Without the prefix binding, the default namespace hides the elements.
        #expect(try document.nodes(matching: "//entry").isEmpty)
        #expect(try document.string(for: "/a:feed/a:entry[2]/a:link/@href", namespaces: ns) == "https://example.com/2")
        #expect(try document.string(for: "count(//a:entry)", namespaces: ns) == "2")
        #expect(try document.string(for: "//a:missing", namespaces: ns) == "")
        let hrefs = try document.nodes(matching: "//a:link/@href", namespaces: ns)
        #expect(hrefs.map(\.kind) == [.attribute, .attribute])
        #expect(hrefs.map(\.text) == ["https://example.com/1", "https://example.com/2"])
        #expect(hrefs.first?.parent?.element?.localName == "link")
        let urls = try document.elements(matching: "//m:thumbnail", namespaces: ns).compactMap { $0.attribute("url") }
        #expect(urls == ["https://example.com/1.jpg"])
        // Relative to an element.
        let second = try #require(entries.last?.element)
        #expect(try second.string(for: "a:title", namespaces: ns) == "Second <b>bold</b>")
        #expect(try second.elements(matching: "a:link", namespaces: ns).count == 1)
        #expect(try document.nodes(matching: "//a:entry/a:title/text()", namespaces: ns).map(\.kind) == [.text, .cdata])
    }

    @Test func reportsXPathErrors() throws {
        let document = try XMLTree(string: Self.atom)
        let unbound = #expect(throws: XPathError.self) { try document.nodes(matching: "//x:entry") }
        #expect(unbound?.message.lowercased().contains("namespace") == true, "\(String(describing: unbound))")
        let invalid = #expect(throws: XPathError.self) { try document.nodes(matching: "//[") }
        #expect(invalid?.expression == "//[")
        #expect(invalid?.description.hasPrefix("XPath '//[': ") == true)
        #expect(invalid?.message.contains("offset") == true, "\(String(describing: invalid))")
        #expect(throws: XPathError.self) { try document.nodes(matching: "//namespace::*") }
    }

    @Test func reportsParseErrorsWithLineAndColumn() throws {
        let broken = "<root>\n  <a>\n    <b>text</c>\n  </a>\n</root>"
        let error = #expect(throws: XMLParseError.self) { try XMLTree(string: broken) }
        #expect(error?.kind == .malformed)
        #expect(error?.line == 3)
        #expect((error?.column ?? 0) > 1)
        #expect(error?.description.hasPrefix("line 3, column ") == true)
        #expect(error?.message.contains("mismatch") == true)

        let unclosed = #expect(throws: XMLParseError.self) { try XMLTree(string: "<a>\n<b>") }
        #expect(unclosed?.line == 2)
        let empty = #expect(throws: XMLParseError.self) { try XMLTree(data: Data()) }
        #expect(empty?.description == "line 1, column 1: the document is empty")
        #expect(throws: XMLParseError.self) { try XMLTree(string: "just text") }
        #expect(throws: XMLParseError.self) { try XMLTree(string: "<a/><b/>") }
    }

    @Test func honoursEncodings() throws {
        // "café" in ISO-8859-1, declared in the document.
        var latin1 = Data("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><w>caf".utf8)
        latin1.append(0xE9)
        latin1.append(contentsOf: Array("</w>".utf8))
        #expect(try XMLTree(data: latin1).root.text == "café")
        // The same bytes with a Content-Type-style override.
        var undeclared = Data("<w>caf".utf8)
        undeclared.append(0xE9)
        undeclared.append(contentsOf: Array("</w>".utf8))
        #expect(try XMLTree(data: undeclared, options: XMLParseOptions(encoding: "ISO-8859-1")).root.text == "café")
        // Invalid UTF-8 without an override is an error, not mojibake.
        #expect(throws: XMLParseError.self) { try XMLTree(data: undeclared) }
        let unknown = #expect(throws: XMLParseError.self) {
            try XMLTree(data: Data("<a/>".utf8), options: XMLParseOptions(encoding: "x-no-such-charset"))
        }
        #expect(unknown?.kind == .unsupportedEncoding)
    }

    @Test func removesBlankTextOnRequest() throws {
        let text = "<a>\n  <b>1</b>\n  <c>2</c>\n</a>"
        #expect(try XMLTree(string: text).root.children.count == 5)
        #expect(try XMLTree(string: text, options: XMLParseOptions(removesBlankText: true)).root.children.count == 2)
    }

    @Test func nodesKeepTheirDocumentAlive() throws {
        func firstTitle() throws -> XMLTreeElement? {
            try XMLTree(string: Self.atom).root.firstElement(named: "entry")?.firstElement(named: "title")
        }
        let title = try #require(try firstTitle())
        #expect(title.text == "Första – 日本語 🎉")
        #expect(title.document.root.name == "feed")
    }

    @Test func serializes() throws {
        let document = try XMLTree(string: "<a x=\"1\"><b>é &amp; ü</b></a>")
        #expect(document.root.xmlString() == "<a x=\"1\"><b>é &amp; ü</b></a>")
        #expect(document.xmlString().contains("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"))
        let reparsed = try XMLTree(string: document.xmlString(formatted: true))
        #expect(reparsed.root.firstElement(named: "b")?.text == "é & ü")
    }

    @Test func expandsInternalEntitiesWhenReading() throws {
        let document = try XMLTree(string: """
            <!DOCTYPE r [<!ENTITY co "Acme &amp; Co">]>
            <r name="x &co;">Made by &co;.</r>
            """)
        #expect(document.root.text == "Made by Acme & Co.")
        #expect(document.root.attribute("name") == "x Acme & Co")
        #expect(document.root.children.contains { $0.kind == .entityReference && $0.name == "co" })
    }

    @Test func supportsConcurrentReadersOfOneDocument() async throws {
        var text = "<list>"
        for index in 0..<200 { text += "<item n=\"\(index)\"><v>\(index * 2)</v></item>" }
        text += "</list>"
        let document = try XMLTree(string: text)
        let sums = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var sum = 0
                    for item in try document.elements(matching: "//item") {
                        sum += Int(try item.string(for: "v")) ?? -1_000_000
                        sum += Int(item.attribute("n") ?? "") ?? -1_000_000
                    }
                    return sum
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        let expected = (0..<200).reduce(0) { $0 + $1 * 3 }
        #expect(sums == Array(repeating: expected, count: 8))
    }
}
