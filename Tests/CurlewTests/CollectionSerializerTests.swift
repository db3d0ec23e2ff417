import Foundation
import HTTPTypes
import Testing

@testable import Curlew

@Suite("Collection serializers")
struct CollectionSerializerTests {
    typealias Support = SerializationTestSupport

    struct Item: Codable, Sendable, Equatable {
        let id: Int
        let title: String
    }

    func use<S: ResponseSerializer>(_ serializer: S) -> S { serializer }

    let nested = #"""
        {"data": {"total": 4, "items": [
            {"id": 1, "title": "one"},
            {"id": "two", "title": "two"},
            {"id": 3},
            {"id": 4, "title": "four"}
        ]}}
        """#

    @Test func topLevelArray() throws {
        let items = try use(.collection(of: Item.self)).serialize(Support.response(#"[{"id":1,"title":"a"},{"id":2,"title":"b"}]"#))
        #expect(items == [Item(id: 1, title: "a"), Item(id: 2, title: "b")])
    }

    @Test func keyPath() throws {
        let body = #"{"meta":{},"data":{"items":[{"id":5,"title":"x"}]}}"#
        #expect(try use(.collection(of: Item.self, keyPath: "data.items")).serialize(Support.response(body)) == [Item(id: 5, title: "x")])
        #expect(try use(.collection(of: Item.self, keyPath: "data.items")).serialize(Support.response(#"{"data":{"items":[]}}"#)) == [])
    }

    @Test func strictModeFailsOnTheFirstBadElementAndNamesIt() {
        let error = try? #require(throws: CurlewError.self) {
            try use(.collection(of: Item.self, keyPath: "data.items")).serialize(Support.response(nested))
        }
        #expect(error?.kind == .serializationFailed)
        #expect(error?.message.contains("element 1") == true)
        #expect(error?.message.contains("data.items") == true)
        #expect(error?.underlying is DecodingError)
    }

    @Test func lossyModeSkipsAndReportsBadElements() throws {
        let result = try use(.lossyCollection(of: Item.self, keyPath: "data.items")).serialize(Support.response(nested))
        #expect(Array(result) == [Item(id: 1, title: "one"), Item(id: 4, title: "four")])
        #expect(result.failures.map(\.index) == [1, 2])
        #expect(result.sourceCount == 4)
        #expect(!result.isComplete)
        guard let typeMismatch = result.failures.first?.error as? DecodingError,
            case .typeMismatch = typeMismatch
        else {
            Issue.record("element 1 fails with a type mismatch, got \(String(describing: result.failures.first))")
            return
        }
        guard let missingKey = result.failures.last?.error as? DecodingError, case .keyNotFound(let key, _) = missingKey
        else {
            Issue.record("element 2 fails with a missing key")
            return
        }
        #expect(key.stringValue == "title")
    }

    @Test func lossyModeSkipsNestedStructuresCorrectly() throws {
        let body = #"[{"id":1,"title":"a"},[1,[2,{"x":[3]}]],{"id":2,"title":"b"},null,"s",{"id":3,"title":"c"}]"#
        let result = try use(.lossyCollection(of: Item.self)).serialize(Support.response(body))
        #expect(result.map(\.id) == [1, 2, 3])
        #expect(result.failures.map(\.index) == [1, 3, 4])
    }

    @Test func missingOrWrongKeyPath() {
        let missing = try? #require(throws: CurlewError.self) {
            try use(.collection(of: Item.self, keyPath: "data.entries")).serialize(Support.response(nested))
        }
        #expect(missing?.kind == .serializationFailed)
        #expect(missing?.message.contains("no JSON array at key path 'data.entries'") == true)
        let notArray = try? #require(throws: CurlewError.self) {
            try use(.lossyCollection(of: Item.self, keyPath: "data.total")).serialize(Support.response(nested))
        }
        #expect(notArray?.kind == .serializationFailed)
        let topLevelObject = try? #require(throws: CurlewError.self) {
            try use(.collection(of: Item.self)).serialize(Support.response(nested))
        }
        #expect(topLevelObject?.kind == .serializationFailed)
        let null = try? #require(throws: CurlewError.self) {
            try use(.collection(of: Item.self, keyPath: "data")).serialize(Support.response(#"{"data":null}"#))
        }
        #expect(null?.kind == .serializationFailed)
    }

    @Test func invalidJSONIsASerializationError() {
        let error = try? #require(throws: CurlewError.self) {
            try use(.lossyCollection(of: Item.self)).serialize(Support.response("[{\"id\":1,"))
        }
        #expect(error?.kind == .serializationFailed)
    }

    @Test func customDecoderAndPreprocessorAreUsed() throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        struct Row: Decodable, Sendable, Equatable { let rowID: Int }
        let body = ")]}'\n{\"page\":{\"rows\":[{\"row_i_d\":7}]}}"
        let rows = try use(.collection(of: Row.self, keyPath: "page.rows", decoder: decoder, preprocessor: .xssi))
            .serialize(Support.response(body))
        #expect(rows == [Row(rowID: 7)])
    }

    @Test func concurrentDecodesWithOneSharedDecoderDoNotInterfere() async throws {
        let decoder = JSONDecoder()
        let a = #"{"a":[{"id":1,"title":"a"}]}"#
        let b = #"{"b":{"c":[{"id":2,"title":"b"},{"id":3,"title":"c"}]}}"#
        try await withThrowingTaskGroup(of: Void.self) { group in
            for round in 0..<200 {
                group.addTask {
                    if round.isMultiple(of: 2) {
                        let items = try CollectionResponseSerializer<Item>(keyPath: "a", decoder: decoder).serialize(Support.response(a))
                        #expect(items.map(\.id) == [1])
                    } else {
                        let items = try CollectionResponseSerializer<Item>(keyPath: "b.c", decoder: decoder).serialize(Support.response(b))
                        #expect(items.map(\.id) == [2, 3])
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test func paginationLinksFromTheLinkHeader() {
        var fields = HTTPFields()
        fields.append(HTTPField(name: HTTPField.Name("Link")!, value:
            #"<https://api.example.com/items?page=3&per=10>; rel="next", </items?page=9>; rel="last", "#
            + #"<https://x.example/a,b>; rel="prev first"; title="a, b; c""#))
        fields.append(HTTPField(name: HTTPField.Name("Link")!, value: #"<https://ignored.example>; rel="next", garbage, <>; rel"#))
        let links = PaginationLinks(HTTPResponse(status: .ok, headerFields: fields), baseURL: Support.url)
        #expect(links.next?.absoluteString == "https://api.example.com/items?page=3&per=10")
        #expect(links.last?.absoluteString == "https://api.example.com/items?page=9")
        #expect(links.previous?.absoluteString == "https://x.example/a,b")
        #expect(links.first?.absoluteString == "https://x.example/a,b")
        #expect(links.all.count == 4)
        #expect(PaginationLinks(HTTPResponse(status: .ok)).next == nil)
    }
}
