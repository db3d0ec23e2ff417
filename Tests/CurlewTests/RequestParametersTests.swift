import Foundation
import HTTPTypes
import Testing

@testable import Curlew

@Suite("RequestParameters")
struct RequestParametersTests {
    func request(method: HTTPRequest.Method = .post) -> OutgoingRequest {
        OutgoingRequest(url: URL(string: "https://api.example.com/employees")!, method: method)
    }

    @Test func queryAndJSONBodyAtOnce() throws {
        let parameters: RequestParameters = [
            ParameterSet(["first_name": "John"], encoding: .query),
            ParameterSet(["salary": 100_000], encoding: .json),
        ]
        var request = request()
        try parameters.encode(into: &request)
        #expect(request.url.absoluteString == "https://api.example.com/employees?first_name=John")
        #expect(SerializationTestSupport.text(request.body) == #"{"salary":100000}"#)
        #expect(request.headerFields[.contentType] == "application/json")
    }

    @Test func sameEncodingMergesAndLaterKeysWin() throws {
        let parameters: RequestParameters = [
            ParameterSet(["name": "John", "dob": "01/01/01"], encoding: .json),
            ParameterSet(["dob": "12/12/12"], encoding: .json),
            ParameterSet(["age": 5], encoding: .query),
            ParameterSet(["age": 6, "x": "y"], encoding: .query),
        ]
        var request = request()
        try parameters.encode(into: &request)
        #expect(request.url.query == "age=6&x=y")
        #expect(SerializationTestSupport.text(request.body) == #"{"dob":"12/12/12","name":"John"}"#)
    }

    @Test func bodyEncodingsReplaceEachOther() throws {
        let parameters: RequestParameters = [
            ParameterSet(["a": 1], encoding: .json),
            ParameterSet(["b": 2], encoding: .propertyList(.xml)),
            ParameterSet(["c": 3], encoding: .form),
        ]
        let merged = parameters.merged()
        #expect(merged.count == 1)
        #expect(merged.first?.parameters.keys.sorted() == ["c"])
        var request = request()
        try parameters.encode(into: &request)
        #expect(SerializationTestSupport.text(request.body) == "c=3")
        #expect(request.headerFields[.contentType] == "application/x-www-form-urlencoded; charset=utf-8")
    }

    @Test func aBodySetAfterAReplacementStartsAfresh() {
        let parameters: RequestParameters = [
            ParameterSet(["a": 1], encoding: .json),
            ParameterSet(["b": 2], encoding: .propertyList(.xml)),
            ParameterSet(["c": 3], encoding: .json),
        ]
        let body = parameters.merged().first { $0.encoding.isBodyEncoding }
        #expect(body?.parameters.keys.sorted() == ["c"])
    }

    @Test func baseParametersComeFirstAndAreOverridden() throws {
        let base: RequestParameters = [ParameterSet(["token": "base", "lang": "en"], encoding: .query)]
        let own: RequestParameters = [ParameterSet(["token": "mine"], encoding: .query)]
        var request = request(method: .get)
        try base.appending(own).encode(into: &request)
        #expect(request.url.query == "lang=en&token=mine")
    }

    @Test func customSetsAreAppliedInOrderAfterTheOthers() throws {
        struct Marker: ParameterEncoder {
            let name: String
            func encode<Value: Encodable & Sendable>(_ parameters: Value, into request: inout OutgoingRequest) throws {}
            func encode(_ parameters: Parameters, into request: inout OutgoingRequest) throws {
                let before = request.url.query ?? ""
                request.url = try URLEncodedFormParameterEncoder.appendingQuery("\(name)=\(parameters.count)", to: request.url)
                #expect(before.hasPrefix("q=1"))
            }
        }
        let parameters: RequestParameters = [
            ParameterSet(["x": 1], encoding: .custom(Marker(name: "first"))),
            ParameterSet(["q": 1], encoding: .query),
            ParameterSet(["y": 1, "z": 2], encoding: .custom(Marker(name: "second"))),
        ]
        var request = request(method: .get)
        try parameters.encode(into: &request)
        #expect(request.url.query == "q=1&first=1&second=2")
    }

    @Test func subscriptReadsAndWrites() {
        var set = ParameterSet([:], encoding: .json)
        set["a"] = 1
        #expect(set["a"] as? Int == 1)
        set["a"] = nil
        #expect(set.parameters.isEmpty)
    }
}
