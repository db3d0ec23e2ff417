import CurlewXML
import Foundation
import Testing

@Suite("XMLTreeDecoder")
struct XMLTreeDecoderTests {
    struct Book: Decodable, Equatable {
        struct Price: Decodable, Equatable {
            let currency: String
            let value: Decimal
        }
        let id: Int
        let lang: String
        let title: String
        let price: Price
        let tag: [String]
        let isbn: String?
        let subtitle: String?
        let inStock: Bool
        let rating: Double
        let published: Date
        let homepage: URL
    }

    static let book = """
        <book id="42" lang="en">
          <title>Dune — «classic»</title>
          <price currency="EUR"> 9.50 </price>
          <tag>sf</tag>
          <tag>classic</tag>
          <subtitle/>
          <inStock>true</inStock>
          <rating>4.5</rating>
          <published>1965-08-01T00:00:00Z</published>
          <homepage> https://example.com/dune </homepage>
        </book>
        """

    @Test func decodesElementsAttributesTextAndArrays() throws {
        let book = try XMLTreeDecoder().decode(Book.self, from: Data(Self.book.utf8))
        #expect(book == Book(
            id: 42, lang: "en", title: "Dune — «classic»", price: .init(currency: "EUR", value: Decimal(string: "9.50")!),
            tag: ["sf", "classic"], isbn: nil, subtitle: nil, inStock: true, rating: 4.5,
            published: Date(timeIntervalSince1970: -139_449_600), homepage: URL(string: "https://example.com/dune")!))
    }

    struct Catalog: Decodable {
        struct Item: Decodable {
            let sku: String
            let qty: UInt8
        }
        let item: [Item]
        let note: [String]
    }

    @Test func decodesRepeatedChildrenAndAbsentArrays() throws {
        let decoder = XMLTreeDecoder()
        let catalog = try decoder.decode(
            Catalog.self, from: try XMLTree(string: "<c><item sku=\"a\" qty=\"1\"/><x/><item sku=\"b\"><qty>2</qty></item></c>"))
        #expect(catalog.item.map(\.sku) == ["a", "b"])
        #expect(catalog.item.map(\.qty) == [1, 2])
        #expect(catalog.note.isEmpty)
        // A top-level element decodes as an array of its child elements.
        let values = try decoder.decode([Int].self, from: try XMLTree(string: "<list><v>1</v><w>2</w><v> 3 </v></list>"))
        #expect(values == [1, 2, 3])
        let optionals = try decoder.decode([Int?].self, from: try XMLTree(string: "<list><v>1</v><v/><v>3</v></list>"))
        #expect(optionals == [1, nil, 3])
    }

    struct Link: Decodable, Equatable {
        let href: String
        let rel: String?
        let label: String
    }

    @Test func readsQualifiedNamesAndTheTextKey() throws {
        struct Channel: Decodable {
            let link: String
            let atomLink: Link
            enum CodingKeys: String, CodingKey {
                case link
                case atomLink = "atom:link"
            }
        }
        let xml = """
            <channel xmlns:atom="http://www.w3.org/2005/Atom">
              <link>https://example.com/</link>
              <atom:link href="https://example.com/feed" rel="self">Feed</atom:link>
            </channel>
            """
        let decoder = XMLTreeDecoder(textKey: "label")
        let channel = try decoder.decode(Channel.self, from: Data(xml.utf8))
        #expect(channel.link == "https://example.com/")
        #expect(channel.atomLink == Link(href: "https://example.com/feed", rel: "self", label: "Feed"))
    }

    struct Stamp: Decodable { let at: Date }

    static func decodeDate(_ text: String, _ strategy: XMLTreeDecoder.DateDecodingStrategy) throws -> Date {
        let decoder = XMLTreeDecoder(dateDecodingStrategy: strategy)
        return try decoder.decode(Stamp.self, from: Data("<s><at>\(text)</at></s>".utf8)).at
    }

    @Test func decodesDatesWithEachStrategy() throws {
        let decode = Self.decodeDate
        let expected = Date(timeIntervalSince1970: 1_055_217_600)  // 2003-06-10T04:00:00Z
        #expect(try decode("2003-06-10T04:00:00Z", .iso8601) == expected)
        #expect(try decode("2003-06-10T06:00:00+02:00", .iso8601) == expected)
        #expect(try decode("2003-06-10T04:00:00.250Z", .iso8601) == expected.addingTimeInterval(0.25))
        #expect(try decode("2003-06-10", .iso8601) == Date(timeIntervalSince1970: 1_055_203_200))
        #expect(try decode("Tue, 10 Jun 2003 04:00:00 GMT", .rfc822) == expected)
        #expect(try decode("Tue, 10 Jun 2003 00:00:00 -0400", .rfc822) == expected)
        #expect(try decode("10 Jun 2003 04:00 +0000", .rfc822) == expected)
        #expect(try decode("1055217600", .secondsSince1970) == expected)
        #expect(try decode("1055217600000", .millisecondsSince1970) == expected)
        #expect(try decode("x", .custom { _ in expected }) == expected)
        #expect(throws: DecodingError.self) { try decode("10/06/2003", .iso8601) }
        #expect(throws: DecodingError.self) { try decode("2003-06-10T04:00:00Z", .rfc822) }
        #expect(throws: DecodingError.self) { try decode("soon", .custom { _ in throw CocoaError(.formatting) }) }
    }

    @Test func explainsMissingKeys() throws {
        struct Needs: Decodable { let name: String }
        do {
            _ = try XMLTreeDecoder().decode(Needs.self, from: Data("<person>\n<age>3</age></person>".utf8))
            Issue.record("decoded a missing key")
        } catch DecodingError.keyNotFound(let key, let context) {
            #expect(key.stringValue == "name")
            #expect(context.debugDescription.contains("<person> at line 1"))
        }
    }

    struct Numbers: Decodable {
        let small: UInt8?
        let count: Int?
        let flag: Bool?
        let one: String?
    }

    static func numbersFailure(_ xml: String) -> DecodingError? {
        do {
            _ = try XMLTreeDecoder().decode(Numbers.self, from: Data(xml.utf8))
            return nil
        } catch let error as DecodingError {
            return error
        } catch {
            return nil
        }
    }

    @Test func explainsTypeMismatches() throws {
        let failure = Self.numbersFailure
        guard case .typeMismatch(_, let context)? = failure("<n>\n<count>abc</count></n>") else {
            Issue.record("expected a type mismatch")
            return
        }
        #expect(context.debugDescription.contains("'abc'"))
        #expect(context.debugDescription.contains("<count> at line 2"))
        #expect(context.codingPath.map(\.stringValue) == ["count"])
        guard case .dataCorrupted(let overflow)? = failure("<n small=\"300\"/>") else {
            Issue.record("expected an overflow")
            return
        }
        #expect(overflow.debugDescription.contains("UInt8"))
        #expect(overflow.debugDescription.contains("attribute 'small'"))
        guard case .typeMismatch(_, let flag)? = failure("<n><flag>yes</flag></n>") else {
            Issue.record("expected a boolean mismatch")
            return
        }
        #expect(flag.debugDescription.contains("boolean"))
        guard case .typeMismatch(_, let repeated)? = failure("<n><one>a</one><one>b</one></n>") else {
            Issue.record("expected a repeated-element mismatch")
            return
        }
        #expect(repeated.debugDescription.contains("found 2"))
        #expect(failure("<n><small>7</small><count>-3</count><flag>0</flag><one>x</one></n>") == nil)
    }

    @Test func decodesNestedPathsInErrors() throws {
        struct Outer: Decodable {
            struct Inner: Decodable { let value: Int }
            let inner: [Inner]
        }
        do {
            _ = try XMLTreeDecoder().decode(Outer.self, from: Data("<o><inner><value>1</value></inner><inner><value>x</value></inner></o>".utf8))
            Issue.record("decoded a bad nested value")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["inner", "Index 1", "value"])
        }
    }

    @Test func trimsStringsOnRequest() throws {
        struct Name: Decodable { let name: String }
        let xml = Data("<p><name>\n  Ann\n</name></p>".utf8)
        #expect(try XMLTreeDecoder().decode(Name.self, from: xml).name == "\n  Ann\n")
        #expect(try XMLTreeDecoder(trimsStringWhitespace: true).decode(Name.self, from: xml).name == "Ann")
    }

    @Test func passesParseErrorsThrough() throws {
        struct Anything: Decodable {}
        let error = #expect(throws: XMLParseError.self) {
            try XMLTreeDecoder().decode(Anything.self, from: Data("<a><b></a>".utf8))
        }
        #expect(error?.line == 1)
    }
}
