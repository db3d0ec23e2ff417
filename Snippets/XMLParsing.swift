// XML through libxml2 with CurlewXML.
// snippet.hide
import Curlew
import CurlewXML
import Foundation
import HTTPTypes

struct Feed: Sendable { let title: String; let items: [String] }
struct Catalog: Decodable, Sendable { let name: String }
let url = URL(string: "https://example.com/feed.xml")!
let session = Session()

// snippet.show
// snippet.tree
let document = try await session.request(url).serialized(by: .xmlDocument).value
let titles = try document.nodes(matching: "//a:entry/a:title",
                                namespaces: ["a": "http://www.w3.org/2005/Atom"]).map(\.text)
// snippet.end

// snippet.serializer
struct RSSFeedSerializer: XMLSerializer {
    func serialize(_ document: XMLTree, head: HTTPResponse) throws -> Feed {
        Feed(title: try document.string(for: "/rss/channel/title"),
             items: try document.nodes(matching: "//item/title").map(\.text))
    }
}
let feed = try await session.request(url).serialized(by: .xml(RSSFeedSerializer())).value
let catalog = try await session.request(url).serialized(by: .xmlDecodable(Catalog.self)).value
// snippet.end

// snippet.stream
for try await item in session.request(url).bytes.xmlElements(named: "item") { print(item.text) }
// snippet.end

// snippet.hide
print(titles, feed, catalog)
await session.shutdown()
