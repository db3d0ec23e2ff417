import Curlew
import CurlewXML
import Foundation
import HTTPTypes
import Testing
import TestServer

/// XML serializers and the XML element stream over real HTTP against the test server.
@Suite("XML over the network")
struct XMLNetworkTests {
    private static let serverTask = Task { try await TestServer.start() }
    private let session = Session()

    struct Book: Decodable, Sendable, Equatable {
        let id: Int
        let lang: String
        let title: String
        let author: String
    }

    struct Catalog: Decodable, Sendable {
        let name: String
        let book: [Book]
    }

    /// A user-written serializer: gets the parsed document and the head, returns its own type.
    struct TitlesSerializer: XMLSerializer {
        func serialize(_ document: XMLTree, head: HTTPResponse) throws -> [String] {
            try document.nodes(matching: "//book/title").map { $0.text }
        }
    }

    @Test func documentCustomSerializerAndDecodable() async throws {
        let server = try await Self.serverTask.value
        let request = session.request(server.url("/xml")).validate()
        let document = try await request.serialized(by: .xmlDocument).value
        #expect(document.root.name == "catalog")
        let titles = try await request.serialized(by: .xml(TitlesSerializer())).value
        #expect(titles == ["Swift & curl", "Réseaux"])
        let catalog = try await request.serialized(by: .xmlDecodable(Catalog.self)).value
        #expect(catalog.name == "test")
        #expect(catalog.book.map(\.id) == [1, 2])
        #expect(catalog.book.last?.title == "Réseaux")
        #expect(server.requestCount(path: "/xml") == 1)
    }

    @Test func hostileXMLIsRejectedWithAClearError() async throws {
        let server = try await Self.serverTask.value
        let laughs = """
            <?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">\
            <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">\
            <!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;"><!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">\
            <!ENTITY g "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;"><!ENTITY h "&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;">]><l>&h;</l>
            """
        let xxe = """
            <?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>
            """
        for (name, body) in [("laughs", laughs), ("xxe", xxe), ("broken", "<a><b></a>")] {
            let encoded = body.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let url = server.url("/content-type?type=application%2Fxml&body=\(encoded)")
            do {
                let document = try await session.request(url).serialized(by: .xmlDocument).value
                // External entities are never loaded: the text must not contain the file.
                #expect(name == "xxe", "\(name) should have been rejected")
                #expect(!document.root.text.contains("root:"))
            } catch {
                #expect(error.kind == .serializationFailed, "\(name): \(error)")
            }
        }
    }

    @Test func emptyBodyIsAClearError() async throws {
        let server = try await Self.serverTask.value
        do {
            _ = try await session.request(server.url("/content-type?type=application%2Fxml&body=")).serialized(by: .xmlDocument).value
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .emptyResponse)
        }
    }

    /// Records stream through libxml2's push parser from the byte stream, with bounded memory.
    @Test(.timeLimit(.minutes(5)))
    func elementStreamOverTheNetworkKeepsMemoryBounded() async throws {
        let server = try await Self.serverTask.value
        // About 50 bytes a record: 4.2 M records ≈ 200 MiB of XML through libxml2's push parser.
        let count = 4_200_000
        let before = try ProcessMemory.residentBytes()
        var peak = before
        var seen = 0
        var mismatches = 0
        for try await item in session.request(server.url("/xml-records?count=\(count)")).validate().bytes.xmlElements(named: "item") {
            if item.attribute("id") != String(seen) { mismatches += 1 }
            seen += 1
            if seen % 100_000 == 0 { peak = try max(peak, ProcessMemory.residentBytes()) }
        }
        #expect(seen == count)
        #expect(mismatches == 0)
        #expect(peak - before < 64 << 20)
    }
}
