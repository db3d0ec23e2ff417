import Foundation
import HTTPTypes
import Testing

@testable import Curlew

@Suite("Response serializers")
struct ResponseSerializerTests {
    typealias Support = SerializationTestSupport

    struct User: Codable, Sendable, Equatable {
        let id: Int
        let name: String
    }

    /// Resolves a static factory the way `serialized(by: .json)` does.
    func use<S: ResponseSerializer>(_ serializer: S) -> S { serializer }

    @Test func jsonParsesTheBody() throws {
        let json = try use(.json).serialize(Support.response(#"{"user":{"name":"Ann"}}"#))
        #expect(json["user"]["name"].string == "Ann")
    }

    @Test(arguments: [(204, HTTPRequest.Method.get), (205, .get), (200, .head)])
    func jsonEmptyBodyIsNullWhereAllowed(status: Int, method: HTTPRequest.Method) throws {
        let response = Support.response(Data(), status: .init(code: status), method: method)
        #expect(try use(.json).serialize(response) == .null)
        #expect(try use(.decodable(JSON.self)).serialize(response) == .null)
        #expect(try use(.propertyList).serialize(response) == .dictionary([:]))
        #expect(try use(.collection(of: User.self)).serialize(response) == [])
        #expect(try use(.lossyCollection(of: User.self)).serialize(response).isEmpty)
    }

    @Test func emptyBodyElsewhereIsAnEmptyResponseError() {
        let response = Support.response(Data(), status: .ok)
        for serialize in [
            { _ = try use(.json).serialize(response) },
            { _ = try use(.propertyList).serialize(response) },
            { _ = try use(.decodablePropertyList(User.self)).serialize(response) },
            { _ = try use(.collection(of: User.self)).serialize(response) },
            { _ = try use(.lossyCollection(of: User.self)).serialize(response) },
        ] as [() throws -> Void] {
            let error = try? #require(throws: CurlewError.self) { try serialize() }
            #expect(error?.kind == .emptyResponse)
            #expect(error?.url == Support.url)
            #expect(error?.status == .ok)
        }
    }

    @Test func badJSONIsASerializationError() {
        let error = try? #require(throws: CurlewError.self) {
            try use(.json).serialize(Support.response("{\"a\": tru"))
        }
        #expect(error?.kind == .serializationFailed)
        #expect(error?.message.contains("not valid JSON") == true)
        #expect(error?.underlying != nil)
        #expect(error?.responseBodyText == "{\"a\": tru")
    }

    @Test func xssiPrefixIsStripped() throws {
        let body = ")]}',\n{\"id\":1,\"name\":\"A\"}"
        #expect(try use(.json(preprocessor: .xssi)).serialize(Support.response(body))["id"].int == 1)
        #expect(try use(.decodable(User.self).preprocessed(by: .xssi)).serialize(Support.response(body)) == User(id: 1, name: "A"))
        #expect(try XSSIPreprocessor().preprocess(Data("[1]".utf8)) == Data("[1]".utf8))
        #expect(try XSSIPreprocessor().preprocess(Data(")]}'\r\n[1]".utf8)) == Data("[1]".utf8))
        #expect(throws: CurlewError.self) { try use(.json).serialize(Support.response(body)) }
        let onlyPrefix = try? #require(throws: CurlewError.self) {
            try use(.json(preprocessor: .xssi)).serialize(Support.response(")]}',\n"))
        }
        #expect(onlyPrefix?.kind == .emptyResponse)
    }

    @Test func failingPreprocessorIsASerializationError() {
        struct Reject: DataPreprocessor {
            struct Nope: Error {}
            func preprocess(_ data: Data) throws -> Data { throw Nope() }
        }
        let error = try? #require(throws: CurlewError.self) {
            try use(.string).preprocessed(by: Reject()).serialize(Support.response("x"))
        }
        #expect(error?.kind == .serializationFailed)
        #expect(error?.underlying is Reject.Nope)
    }

    @Test func propertyListUntypedAndDecodable() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>id</key><integer>7</integer><key>name</key><string>Zoë</string>
            <key>when</key><date>2024-01-02T03:04:05Z</date><key>blob</key><data>AAEC</data>
            <key>ratio</key><real>0.5</real><key>ok</key><true/>
            <key>list</key><array><string>a</string><integer>2</integer></array>
            </dict></plist>
            """
        let response = Support.response(xml, contentType: "application/x-plist")
        let plist = try use(.propertyList).serialize(response)
        #expect(plist["id"]?.int == 7)
        #expect(plist["name"]?.string == "Zoë")
        #expect(plist["when"]?.date == Date(timeIntervalSince1970: 1_704_164_645))
        #expect(plist["blob"]?.dataValue == Data([0, 1, 2]))
        #expect(plist["ratio"]?.double == 0.5)
        #expect(plist["ok"]?.bool == true)
        #expect(plist["list"]?[1]?.int == 2)
        #expect(plist["missing"] == nil)
        #expect(try use(.decodablePropertyList(User.self)).serialize(response) == User(id: 7, name: "Zoë"))

        let binary = try PropertyListEncoder().encodeBinary(User(id: 1, name: "B"))
        #expect(try use(.decodablePropertyList(User.self)).serialize(Support.response(binary)) == User(id: 1, name: "B"))
    }

    @Test func badPropertyListsAreSerializationErrors() {
        let garbage = try? #require(throws: CurlewError.self) {
            try use(.propertyList).serialize(Support.response("<plist><dict><key>a</key>"))
        }
        #expect(garbage?.kind == .serializationFailed)
        let wrongType = try? #require(throws: CurlewError.self) {
            try use(.decodablePropertyList(User.self)).serialize(
                Support.response(#"<?xml version="1.0"?><plist version="1.0"><dict><key>id</key><string>x</string></dict></plist>"#))
        }
        #expect(wrongType?.kind == .serializationFailed)
        #expect(wrongType?.underlying is DecodingError)
    }
}

extension PropertyListEncoder {
    func encodeBinary<T: Encodable>(_ value: T) throws -> Data {
        outputFormat = .binary
        return try encode(value)
    }
}
