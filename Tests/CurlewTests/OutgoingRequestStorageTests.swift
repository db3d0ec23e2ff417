@testable import Curlew
import Foundation
import HTTPTypes
import Testing

/// `OutgoingRequest` keeps its fields in a box shared between copies (copy on write): an
/// interceptor's change to its copy must never show in the request it was given, nor in any
/// other copy, whichever field it changes.
@Suite struct OutgoingRequestStorageTests {
    private func request() throws -> OutgoingRequest {
        var fields = HTTPFields()
        fields[.accept] = "application/json"
        return OutgoingRequest(
            url: try #require(URL(string: "http://127.0.0.1/a")), method: .get, headerFields: fields,
            body: .data(Data("one".utf8)))
    }

    @Test func changingEachFieldOfACopyLeavesTheOriginal() throws {
        let original = try request()
        var copy = original
        copy.url = try #require(URL(string: "http://127.0.0.1/b"))
        copy.method = .post
        copy.headerFields[.accept] = "text/plain"
        copy.headerFields.append(HTTPField(name: .authorization, value: "Bearer t"))
        copy.body = .data(Data("two".utf8))
        copy.options.maximumBodySize = 5
        #expect(original.url.absoluteString == "http://127.0.0.1/a")
        #expect(original.method == .get)
        #expect(original.headerFields[.accept] == "application/json")
        #expect(original.headerFields[.authorization] == nil)
        #expect(original.body?.length == 3)
        #expect(original.options.maximumBodySize == nil)
        #expect(copy.url.absoluteString == "http://127.0.0.1/b")
        #expect(copy.method == .post)
        #expect(copy.headerFields[.accept] == "text/plain")
        #expect(copy.headerFields[.authorization] == "Bearer t")
        #expect(copy.options.maximumBodySize == 5)
    }

    @Test func changingTheOriginalLeavesACopy() throws {
        var original = try request()
        let copy = original
        original.headerFields[.accept] = nil
        original.method = .delete
        #expect(copy.headerFields[.accept] == "application/json")
        #expect(copy.method == .get)
        #expect(original.headerFields[.accept] == nil)
    }

    @Test func aRequestShowsItsFieldsWhenPrinted() throws {
        let labels = Mirror(reflecting: try request()).children.compactMap(\.label)
        #expect(labels == ["url", "method", "headerFields", "body", "options"])
        #expect(String(describing: try request()).contains("http://127.0.0.1/a"))
    }
}
