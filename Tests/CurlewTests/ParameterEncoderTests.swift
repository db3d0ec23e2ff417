import Foundation
import HTTPTypes
import Testing

@testable import Curlew

@Suite("ParameterEncoder")
struct ParameterEncoderTests {
    struct NewUser: Codable, Sendable, Equatable {
        let name: String
        let age: Int
        let tags: [String]
    }

    /// Resolves a static factory the way a call site like `encoder: .json` does.
    func use<Encoder: ParameterEncoder>(_ encoder: Encoder) -> Encoder { encoder }

    func request(_ url: String = "https://api.example.com/users", method: HTTPRequest.Method) -> OutgoingRequest {
        OutgoingRequest(url: URL(string: url)!, method: method)
    }

    @Test(arguments: [HTTPRequest.Method.get, .head, .delete])
    func formGoesToTheQueryForGetHeadDelete(method: HTTPRequest.Method) throws {
        var request = request(method: method)
        try use(.urlEncodedForm).encode(["q": "swift & curl", "page": 2], into: &request)
        #expect(request.url.absoluteString == "https://api.example.com/users?page=2&q=swift%20%26%20curl")
        #expect(request.body == nil)
        #expect(request.headerFields[.contentType] == nil)
    }

    @Test(arguments: [HTTPRequest.Method.post, .put, .patch])
    func formGoesToTheBodyForOtherMethods(method: HTTPRequest.Method) throws {
        var request = request(method: method)
        try use(.urlEncodedForm).encode(["q": "swift & curl", "page": 2], into: &request)
        #expect(request.url.absoluteString == "https://api.example.com/users")
        #expect(SerializationTestSupport.text(request.body) == "page=2&q=swift%20%26%20curl")
        #expect(request.headerFields[.contentType] == "application/x-www-form-urlencoded; charset=utf-8")
    }

    @Test func formAppendsToAnExistingQueryAndKeepsTheFragment() throws {
        var request = request("https://h.example/p?page=2&x=%2F#top", method: .get)
        try use(.urlEncodedForm).encode(["q": "é"], into: &request)
        #expect(request.url.absoluteString == "https://h.example/p?page=2&x=%2F&q=%C3%A9#top")
    }

    @Test func forcedDestinations() throws {
        var post = request(method: .post)
        try use(.urlEncodedForm(destination: .query)).encode(["a": 1], into: &post)
        #expect(post.url.query == "a=1")
        #expect(post.body == nil)

        var get = request(method: .get)
        try use(.urlEncodedForm(destination: .form)).encode(["a": 1], into: &get)
        #expect(get.url.query == nil)
        #expect(SerializationTestSupport.text(get.body) == "a=1")
    }

    @Test func typedFormParametersWithOptions() throws {
        var request = request(method: .get)
        let encoder = URLEncodedFormEncoder(arrayEncoding: .noBrackets, keyEncoding: .convertToSnakeCase)
        struct Query: Encodable, Sendable { let pageSizes: [Int] }
        try use(.urlEncodedForm(encoder: encoder)).encode(Query(pageSizes: [1, 2]), into: &request)
        #expect(request.url.query == "page_sizes=1&page_sizes=2")
    }

    @Test func emptyQueryLeavesTheURLAlone() throws {
        var request = request("https://h.example/p?x=1", method: .get)
        try use(.urlEncodedForm).encode([:], into: &request)
        #expect(request.url.absoluteString == "https://h.example/p?x=1")
    }

    @Test func callerContentTypeIsKept() throws {
        var request = request(method: .post)
        request.headerFields[.contentType] = "application/vnd.api+json"
        try use(.json).encode(["a": 1], into: &request)
        #expect(request.headerFields[.contentType] == "application/vnd.api+json")
        try use(.urlEncodedForm).encode(["a": 1], into: &request)
        #expect(request.headerFields[.contentType] == "application/vnd.api+json")
    }

    @Test func jsonEncodable() throws {
        var request = request(method: .get)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        try use(.json(encoder: encoder)).encode(NewUser(name: "Zoë \"Z\"", age: 7, tags: ["a/b"]), into: &request)
        #expect(SerializationTestSupport.text(request.body) == #"{"age":7,"name":"Zoë \"Z\"","tags":["a\/b"]}"#)
        #expect(request.headerFields[.contentType] == "application/json")
        #expect(request.url.query == nil)
    }

    @Test func jsonUntypedIsSortedAndUnescaped() throws {
        var request = request(method: .post)
        let parameters: Parameters = [
            "b": [1, "x", true, NSNull()] as [any Sendable], "a": ["d": 2.5, "c": "/é"] as [String: any Sendable],
        ]
        try use(.json).encode(parameters, into: &request)
        #expect(SerializationTestSupport.text(request.body) == #"{"a":{"c":"/é","d":2.5},"b":[1,"x",true,null]}"#)
    }

    @Test func jsonUntypedRejectsInvalidValuesWithTheirPath() {
        var request = request(method: .post)
        let error = try? #require(throws: CurlewError.self) {
            try use(.json).encode(["ok": 1, "when": ["at": Date()] as [String: any Sendable]], into: &request)
        }
        #expect(error?.kind == .invalidRequest)
        #expect(error?.message.contains("when.at") == true)
        #expect(error?.url == request.url)
        let nan = try? #require(throws: CurlewError.self) {
            try use(.json).encode(["x": Double.nan], into: &request)
        }
        #expect(nan?.kind == .invalidRequest)
    }

    @Test func jsonEncodableFailureIsAClearError() {
        struct Bad: Encodable, Sendable { let x = Double.infinity }
        var request = request(method: .post)
        let error = try? #require(throws: CurlewError.self) { try use(.json).encode(Bad(), into: &request) }
        #expect(error?.kind == .invalidRequest)
        #expect(error?.underlying is EncodingError)
    }

    @Test func propertyListXMLAndBinary() throws {
        let user = NewUser(name: "Ann", age: 30, tags: ["x"])
        var xml = request(method: .post)
        try use(.propertyList).encode(user, into: &xml)
        let xmlText = try #require(SerializationTestSupport.text(xml.body))
        #expect(xmlText.hasPrefix("<?xml"))
        #expect(xmlText.contains("<key>name</key>"))
        #expect(xml.headerFields[.contentType] == "application/x-plist")
        let xmlData = try #require(xmlText.data(using: .utf8))
        #expect(try PropertyListDecoder().decode(NewUser.self, from: xmlData) == user)

        var binary = request(method: .post)
        try use(.propertyList(format: .binary)).encode(user, into: &binary)
        guard case .data(let data) = binary.body?.storage else {
            Issue.record("expected an in-memory body")
            return
        }
        #expect(data.starts(with: Data("bplist00".utf8)))
        #expect(try PropertyListDecoder().decode(NewUser.self, from: data) == user)
    }

    @Test func propertyListUntyped() throws {
        var request = request(method: .post)
        try use(.propertyList).encode(["n": 1, "s": "x", "list": [true] as [any Sendable]], into: &request)
        guard case .data(let data) = request.body?.storage else {
            Issue.record("expected an in-memory body")
            return
        }
        let decoded = try PropertyListDecoder().decode(PropertyListValue.self, from: data)
        #expect(decoded == .dictionary(["n": .integer(1), "s": .string("x"), "list": .array([.bool(true)])]))

        let error = try? #require(throws: CurlewError.self) {
            try use(.propertyList).encode(["n": NSNull()], into: &request)
        }
        #expect(error?.kind == .invalidRequest)
    }

    @Test func customEncoderWithoutUntypedSupport() throws {
        struct Header: ParameterEncoder {
            func encode<Value: Encodable & Sendable>(_ parameters: Value, into request: inout OutgoingRequest) throws {
                let data = try JSONEncoder().encode(parameters)
                request.headerFields[HTTPField.Name("X-Params")!] = String(decoding: data, as: UTF8.self)
            }
        }
        var request = request(method: .get)
        let typed: [String: String] = ["k": "v"]
        try Header().encode(typed, into: &request)
        #expect(request.headerFields[HTTPField.Name("X-Params")!] == #"{"k":"v"}"#)
        let untyped: Parameters = ["k": "v"]
        let error = try? #require(throws: CurlewError.self) { try Header().encode(untyped, into: &request) }
        #expect(error?.kind == .invalidRequest)
    }
}
