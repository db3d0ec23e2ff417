import Curlew
import CurlewXML
import Foundation
import HTTPTypes
import Testing

@Suite("XML response serializers")
struct XMLResponseSerializerTests {
    struct Feed: Sendable, Equatable {
        struct Item: Sendable, Equatable {
            let title: String
            let link: URL
        }
        let title: String
        let items: [Item]
        let etag: String?
    }

    struct FeedError: Error, Sendable {
        let reason: String
    }

    /// A user-written serializer, as in the design brief.
    struct RSSFeedSerializer: XMLSerializer {
        func serialize(_ document: XMLTree, head: HTTPResponse) throws -> Feed {
            guard document.root.name == "rss", let channel = document.root.firstElement(named: "channel") else {
                throw FeedError(reason: "not an RSS document: <\(document.root.name)>")
            }
            let items = try channel.elements(named: "item").map { item in
                guard let link = item.firstElement(named: "link").flatMap({ URL(string: $0.text) }) else {
                    throw FeedError(reason: "an item at line \(item.line) has no link")
                }
                return Feed.Item(title: item.firstElement(named: "title")?.text ?? "", link: link)
            }
            return Feed(
                title: channel.firstElement(named: "title")?.text ?? "", items: items, etag: head.headerFields[.eTag])
        }
    }

    static let rss = """
        <?xml version="1.0" encoding="UTF-8"?>
        <rss version="2.0">
          <channel>
            <title>Curlew News — ünïcode</title>
            <item><title>First</title><link>https://example.com/1</link></item>
            <item><title>Second</title><link>https://example.com/2</link></item>
          </channel>
        </rss>
        """

    static func response(
        _ body: String, status: HTTPResponse.Status = .ok, method: HTTPRequest.Method = .get,
        headers: HTTPFields = [.contentType: "application/rss+xml", .eTag: "\"v1\""]
    ) -> Response<Data> {
        response(Data(body.utf8), status: status, method: method, headers: headers)
    }

    static func response(
        _ body: Data, status: HTTPResponse.Status = .ok, method: HTTPRequest.Method = .get,
        headers: HTTPFields = [.contentType: "application/rss+xml"]
    ) -> Response<Data> {
        let url = URL(string: "http://127.0.0.1:8080/feed.xml")!
        return Response(
            request: OutgoingRequest(url: url, method: method), url: url,
            head: HTTPResponse(status: status, headerFields: headers), value: body, metrics: .zero)
    }

    /// Runs a serializer chosen through the static factory, as a request would.
    static func serialize<S: ResponseSerializer>(_ response: Response<Data>, by serializer: S) throws -> S.Output {
        try serializer.serialize(response)
    }

    @Test func customSerializerWorksThroughTheAdapter() throws {
        let feed = try Self.serialize(Self.response(Self.rss), by: .xml(RSSFeedSerializer()))
        #expect(feed == Feed(
            title: "Curlew News — ünïcode",
            items: [
                .init(title: "First", link: URL(string: "https://example.com/1")!),
                .init(title: "Second", link: URL(string: "https://example.com/2")!),
            ],
            etag: "\"v1\""))
    }

    @Test func serializerErrorsBecomeSerializationFailures() throws {
        let error = #expect(throws: CurlewError.self) {
            try Self.serialize(Self.response("<feed/>"), by: .xml(RSSFeedSerializer()))
        }
        #expect(error?.kind == .serializationFailed)
        #expect((error?.underlying as? FeedError)?.reason == "not an RSS document: <feed>")
        #expect(error?.url?.absoluteString == "http://127.0.0.1:8080/feed.xml")
        #expect(error?.responseBodyText == "<feed/>")
        #expect(error?.status == .ok)
    }

    @Test func malformedXMLNamesLineAndColumn() throws {
        let error = #expect(throws: CurlewError.self) {
            try Self.serialize(Self.response("<rss>\n<channel>\n</rss>"), by: .xml(RSSFeedSerializer()))
        }
        #expect(error?.kind == .serializationFailed)
        let parseError = try #require(error?.underlying as? XMLParseError)
        #expect(parseError.line == 3)
        #expect(error?.message.contains("line 3, column") == true)
    }

    @Test func hostileXMLIsASerializationFailure() throws {
        let laughs = XMLSecurityTests.billionLaughs
        let error = #expect(throws: CurlewError.self) { try Self.serialize(Self.response(laughs), by: .xmlDocument) }
        #expect(error?.kind == .serializationFailed)
        #expect((error?.underlying as? XMLParseError)?.kind == .entityExpansion)
    }

    @Test func emptyBodiesAreClearErrors() throws {
        for (status, method) in [(HTTPResponse.Status.ok, HTTPRequest.Method.get), (.noContent, .get), (.ok, .head)] {
            let error = #expect(throws: CurlewError.self) {
                try Self.serialize(Self.response("", status: status, method: method), by: .xmlDocument)
            }
            #expect(error?.kind == .emptyResponse)
        }
        // An EmptyResponse output is allowed for 204, 205 and HEAD only.
        struct Nothing: XMLSerializer {
            func serialize(_ document: XMLTree, head: HTTPResponse) throws -> Empty { .value }
        }
        #expect(try Self.serialize(Self.response("", status: .noContent), by: .xml(Nothing())) == .value)
        #expect(try Self.serialize(Self.response("", status: .resetContent), by: .xml(Nothing())) == .value)
        #expect(try Self.serialize(Self.response("", method: .head), by: .xml(Nothing())) == .value)
        #expect(throws: CurlewError.self) { try Self.serialize(Self.response(""), by: .xml(Nothing())) }
    }

    @Test func documentSerializerReturnsTheTree() throws {
        let document = try Self.serialize(Self.response(Self.rss), by: .xmlDocument)
        #expect(try document.string(for: "count(/rss/channel/item)") == "2")
        let trimmed = try Self.serialize(
            Self.response("<a>\n  <b/>\n</a>"), by: .xmlDocument(options: XMLParseOptions(removesBlankText: true)))
        #expect(trimmed.root.children.count == 1)
    }

    @Test func decodableSerializerDecodesTheRoot() throws {
        struct RSS: Decodable, Sendable {
            struct Channel: Decodable, Sendable {
                struct Item: Decodable, Sendable { let title: String; let link: URL }
                let title: String
                let item: [Item]
            }
            let version: String
            let channel: Channel
        }
        let rss = try Self.serialize(Self.response(Self.rss), by: .xmlDecodable(RSS.self))
        #expect(rss.version == "2.0")
        #expect(rss.channel.item.map(\.title) == ["First", "Second"])
        let mismatch = #expect(throws: CurlewError.self) {
            try Self.serialize(Self.response("<rss version=\"2.0\"/>"), by: .xmlDecodable(RSS.self))
        }
        #expect(mismatch?.kind == .serializationFailed)
        #expect(mismatch?.underlying is DecodingError)
    }

    @Test func charsetFromContentTypeWins() throws {
        var latin1 = Data("<?xml version=\"1.0\" encoding=\"UTF-8\"?><w>caf".utf8)
        latin1.append(0xE9)
        latin1.append(contentsOf: Array("</w>".utf8))
        let response = Self.response(latin1, headers: [.contentType: "text/xml; charset=ISO-8859-1"])
        #expect(try Self.serialize(response, by: .xmlDocument).root.text == "café")
        let unknown = Self.response(Data("<w/>".utf8), headers: [.contentType: "text/xml; charset=klingon"])
        let error = #expect(throws: CurlewError.self) { try Self.serialize(unknown, by: .xmlDocument) }
        #expect((error?.underlying as? XMLParseError)?.kind == .unsupportedEncoding)
    }
}
