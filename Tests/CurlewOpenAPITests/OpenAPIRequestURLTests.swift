@testable import CurlewOpenAPI
import Foundation
import Testing

/// Joining a server URL with an operation's path, without a network.
@Suite struct OpenAPIRequestURLTests {
    private func join(_ base: String, _ path: String?) throws -> String {
        try OpenAPIRequestURL.join(baseURL: URL(string: base)!, path: path).absoluteString
    }

    @Test func appendsThePathToTheServerPath() throws {
        #expect(try join("https://example.com/api", "/items/1") == "https://example.com/api/items/1")
        #expect(try join("https://example.com", "/items/1") == "https://example.com/items/1")
    }

    @Test func aTrailingSlashIsNotDoubled() throws {
        #expect(try join("https://example.com/api/", "/items") == "https://example.com/api/items")
        #expect(try join("https://example.com/", "/items") == "https://example.com/items")
    }

    @Test func theOperationQueryReplacesTheServerQuery() throws {
        #expect(try join("https://example.com/api?k=v#top", "/items?detail=a%20b") == "https://example.com/api/items?detail=a%20b")
        #expect(try join("https://example.com/api?k=v", "/items") == "https://example.com/api/items")
    }

    @Test func keepsPercentEncodingAndPort() throws {
        #expect(try join("http://127.0.0.1:8080/v1", "/items/a%2Fb") == "http://127.0.0.1:8080/v1/items/a%2Fb")
    }

    @Test func noPathIsTheServerURL() throws {
        #expect(try join("https://example.com/api", nil) == "https://example.com/api")
    }

    @Test func aServerURLWithoutAHostFails() {
        #expect(throws: (any Error).self) { try join("/relative/api", "/items") }
    }
}
