import Foundation
import Testing

@testable import Curlew

@Suite("JSON value")
struct JSONValueTests {
    let document = #"""
        {"user": {"name": "Zoë", "id": 9007199254740993, "admin": false, "score": 4.5,
                  "tags": ["a", "b"], "manager": null},
         "items": [{"id": 1}, {"id": 2}], "big": 18446744073709551615, "neg": -12, "exp": 1e3}
        """#

    @Test func subscriptsAndTypedAccessors() throws {
        let json = try JSON(parsing: document)
        #expect(json["user"]["name"].string == "Zoë")
        #expect(json["user"]["id"].int64 == 9_007_199_254_740_993)
        #expect(json["user"]["id"].int == 9_007_199_254_740_993)
        #expect(json["user"]["admin"].bool == false)
        #expect(json["user"]["score"].double == 4.5)
        #expect(json["user"]["score"].int == nil)
        #expect(json["user"]["tags"][1].string == "b")
        #expect(json["user"]["tags"].count == 2)
        #expect(json["user"]["manager"].isNull)
        #expect(json["items"][1]["id"].int == 2)
        #expect(json["big"].number?.uint64Value == UInt64.max)
        #expect(json["big"].int == nil)
        #expect(json["neg"].int == -12)
        #expect(json["exp"].int == 1000)
        #expect(json["user"].object?.count == 6)
        #expect(json["items"].array?.count == 2)
    }

    @Test func failedLookupsGiveNullNotCrashes() throws {
        let json = try JSON(parsing: document)
        #expect(json["missing"]["deeper"][3].isNull)
        #expect(json["items"][99].isNull)
        #expect(json["items"][-1].isNull)
        #expect(json["user"]["name"][0].isNull)
        #expect(json["user"]["name"].int == nil)
        #expect(json["user"]["admin"].string == nil)
        #expect(json["user"]["admin"].int == nil)
    }

    @Test func keyPaths() throws {
        let json = try JSON(parsing: document)
        #expect(json[keyPath: "user.name"].string == "Zoë")
        #expect(json[keyPath: "items.1.id"].int == 2)
        #expect(json[keyPath: "user.nothing.here"].isNull)
    }

    @Test func literalsAndEquality() throws {
        let built: JSON = ["name": "Ann", "tags": ["a", 1, 2.5, true, nil], "nested": ["k": "v"]]
        let parsed = try JSON(parsing: #"{"nested":{"k":"v"},"tags":["a",1,2.5,true,null],"name":"Ann"}"#)
        #expect(built == parsed)
        #expect(JSON.number(1) == JSON.number(1.0))
        #expect(Set([JSON.number(1), JSON.number(1.0)]).count == 1)
        #expect(JSON.string("1") != JSON.number(1))
        #expect(JSON.bool(true) != JSON.number(1))
    }

    @Test func settingMembers() {
        var json: JSON = nil
        json["a"] = 1
        json["b"] = ["c": true]
        json["a"] = "x"
        #expect(json == ["a": "x", "b": ["c": true]])
        var array: JSON = [1]
        array["k"] = 2
        #expect(array == [1])
    }

    @Test func roundTripsAsSortedCompactText() throws {
        let json = try JSON(parsing: document)
        let text = String(decoding: try json.data(), as: UTF8.self)
        #expect(text.hasPrefix(#"{"big":18446744073709551615,"exp":1000,"items":[{"id":1},{"id":2}],"neg":-12,"#))
        #expect(try JSON(parsing: text) == json)
        #expect((["b": 1, "a": [true, nil]] as JSON).description == #"{"a":[true,null],"b":1}"#)
        #expect(JSON.string("a/\"b\"\n").description == #""a/\"b\"\n""#)
    }

    @Test func scalarTopLevelValues() throws {
        #expect(try JSON(parsing: "42") == 42)
        #expect(try JSON(parsing: "\"s\"") == "s")
        #expect(try JSON(parsing: "null") == nil)
        #expect(try JSON(parsing: "true") == true)
    }

    @Test func invalidTextThrows() {
        #expect(throws: (any Error).self) { try JSON(parsing: "{\"a\": }") }
        #expect(throws: (any Error).self) { try JSON(parsing: "") }
        #expect(throws: (any Error).self) { try JSON(parsing: "[1, 2") }
    }

    @Test func asPropertyOfADecodableAndDecodeBack() throws {
        struct Envelope: Codable, Equatable { let kind: String; let payload: JSON }
        let envelope = try JSONDecoder().decode(
            Envelope.self, from: Data(#"{"kind":"x","payload":{"a":[1,{"b":null}]}}"#.utf8))
        #expect(envelope.payload["a"][1]["b"].isNull)
        #expect(envelope.payload["a"][0].int == 1)
        struct A: Decodable, Equatable { let a: [JSON] }
        #expect(try envelope.payload.decode(A.self) == A(a: [1, ["b": nil]]))
    }

    @Test func numbers() {
        #expect(JSONNumber(Int64.max).int64Value == Int64.max)
        #expect(JSONNumber(UInt64.max).int64Value == nil)
        #expect(JSONNumber(2.0).intValue == 2)
        #expect(JSONNumber(2.5).intValue == nil)
        #expect(JSONNumber(1) < JSONNumber(1.5))
        #expect(JSONNumber(-1) < JSONNumber(UInt64.max))
        #expect(JSONNumber(3).description == "3")
        #expect(JSONNumber(0.5).isFloatingPoint)
    }

    @Test func hostileNestingIsAnErrorNotACrash() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: (any Error).self) { try JSON(parsing: deep) }
        let error = try? #require(throws: CurlewError.self) {
            try JSONResponseSerializer().serialize(SerializationTestSupport.response(deep))
        }
        #expect(error?.kind == .serializationFailed)
    }

    @Test func convertingFoundationObjects() throws {
        let object: [String: Any] = ["a": [1, 2.5, "s", true, NSNull()] as [Any], "b": UInt64.max, "c": Int64.min]
        let json = try JSON(jsonObject: object)
        #expect(json == ["a": [1, 2.5, "s", true, nil], "b": .number(JSONNumber(UInt64.max)), "c": .number(JSONNumber(Int64.min))])
        #expect(throws: CurlewError.self) { try JSON(jsonObject: ["d": Date()]) }
        let huge = try JSON(parsing: "[-9223372036854775808, 18446744073709551615, 123456789012345678901234567890]")
        #expect(huge[0].int64 == Int64.min)
        #expect(huge[1].number?.uint64Value == UInt64.max)
        #expect(huge[2].double == 1.2345678901234568e29)
    }
}
