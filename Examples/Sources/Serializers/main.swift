import Curlew
import CurlewXML
import DemoServer
import Foundation
import HTTPTypes

/// Every built-in serializer, a custom XML serializer and the streaming decoders, against the
/// embedded demo server.

struct User: Codable, Sendable {
    let id: Int
    let name: String
    let email: String
}

struct LogEntry: Decodable, Sendable {
    let level: String
    let message: String
}

/// A user-written XML serializer: it gets the parsed document and returns its own type.
struct RSSFeedSerializer: XMLSerializer {
    struct Feed: Sendable {
        let title: String
        let items: [String]
    }

    func serialize(_ document: XMLTree, head: HTTPResponse) throws -> Feed {
        Feed(
            title: try document.string(for: "/rss/channel/title"),
            items: try document.nodes(matching: "//item/title").map(\.text))
    }
}

let server = try await DemoServer.start()
try await withSession { session in
    // Encoders: parameters as a query, a form, JSON; several sets at once.
    let echo = try await session.request(server.url("/search"), parameters: ["q": "curl & swift", "page": 2])
        .serialized(by: .json).value
    print("query parameters  →", echo["query"].string ?? "")
    let json = try await session.request(server.url("/echo"), method: .post,
                                         parameters: User(id: 7, name: "Ann", email: "ann@example.com"), encoder: .json)
        .serialized(by: .json).value
    print("JSON body         →", json["body"].string ?? "")

    // Response serializers.
    let data = try await session.request(server.url("/users/1")).data()
    print("Data              →", data.count, "bytes")
    print("String            →", try await session.request(server.url("/users/1")).string())
    let user = try await session.request(server.url("/users/1")).decode(User.self)
    print("Decodable         →", user.name)
    let untyped = try await session.request(server.url("/users/1")).serialized(by: .json).value
    print("JSON value        →", untyped["email"].string ?? "")
    let lossy = try await session.request(server.url("/users"))
        .serialized(by: .lossyCollection(of: User.self, keyPath: "data.items")).value
    print("lossy collection  →", lossy.map(\.name), "skipped:", lossy.failures.map(\.description))

    // XML through libxml2, with a custom serializer.
    let feed = try await session.request(server.url("/feed.xml")).validate()
        .serialized(by: .xml(RSSFeedSerializer())).value
    print("custom XML        →", feed.title, feed.items)

    // Streaming decoders with bounded memory.
    for try await entry in session.request(server.url("/logs.ndjson")).decodeStream(LogEntry.self, framing: .jsonLines) {
        print("JSON Lines        →", entry.level, entry.message)
    }
    for try await event in session.request(server.url("/events")).serverSentEvents {
        print("Server-Sent Event →", event.event, event.data.replacingOccurrences(of: "\n", with: " / "))
    }
}
try await server.shutdown()
