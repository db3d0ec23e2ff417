import Foundation
import HTTPTypes
import Testing

@testable import Curlew

@Suite("Typed API errors")
struct APIErrorTests {
    typealias Support = SerializationTestSupport

    struct ServiceError: Decodable, Error, Equatable {
        let code: String
        let message: String
    }

    struct User: Decodable, Sendable, Equatable { let id: Int }

    func use<S: ResponseSerializer>(_ serializer: S) -> S { serializer }

    @Test func successUsesTheBaseSerializer() throws {
        let user = try use(.decodable(User.self).decodingErrors(as: ServiceError.self)).serialize(Support.response(#"{"id":3}"#))
        #expect(user == User(id: 3))
    }

    @Test func errorBodyIsDecodedAndThrownWithTheResponse() throws {
        let body = #"{"code":"E42","message":"Database error","details":{"table":"users"}}"#
        let response = Support.response(body, status: .unprocessableContent)
        do {
            _ = try use(.decodable(User.self).decodingErrors(as: ServiceError.self)).serialize(response)
            Issue.record("a 422 must throw")
        } catch let error as CurlewError {
            #expect(error.kind == .unacceptableStatus)
            #expect(error.apiError(as: ServiceError.self) == ServiceError(code: "E42", message: "Database error"))
            #expect(error.status == .unprocessableContent)
            #expect(error.url == Support.url)
            #expect(error.responseBody == Data(body.utf8))
            #expect(error.responseBodyText == body)
            #expect(error.responseBodyText == body)
            #expect(error.responseJSON["details"]["table"].string == "users")
            #expect(error.description.contains("422"))
            #expect(error.description.contains("Database error"))
        }
    }

    @Test func undecodableErrorBodyKeepsTheDecodingError() {
        let response = Support.response("<html>Bad Gateway</html>", status: .badGateway, contentType: "text/html")
        let error = try? #require(throws: CurlewError.self) {
            try use(.json.decodingErrors(as: ServiceError.self)).serialize(response)
        }
        #expect(error?.kind == .unacceptableStatus)
        #expect(error?.status == .badGateway)
        #expect(error?.apiError(as: ServiceError.self) == nil)
        #expect(error?.responseBodyText == "<html>Bad Gateway</html>")
        #expect(error?.responseJSON == .null)
        #expect(error?.underlying is DecodingError)
        let empty = try? #require(throws: CurlewError.self) {
            try use(.json.decodingErrors(as: ServiceError.self)).serialize(Support.response(Data(), status: .notFound))
        }
        #expect(empty?.message.contains("empty body") == true)
    }

    @Test func bodyTextFollowsTheCharset() {
        let latin1 = Data([0x63, 0x61, 0x66, 0xE9])  // "café" in ISO-8859-1
        let response = Support.response(latin1, status: .badRequest, contentType: "text/plain; charset=ISO-8859-1")
        let error = APIErrorDecoder(ServiceError.self).error(for: response)
        #expect(error.responseBodyText == "café")
        #expect(error.responseBody.map { String(decoding: $0, as: UTF8.self) } == "caf\u{FFFD}")
    }

    @Test func validateHonoursTheAcceptableRange() throws {
        let decoder = APIErrorDecoder(ServiceError.self)
        try decoder.validate(Support.response("{}", status: .ok))
        try decoder.validate(Support.response("{}", status: .notModified), acceptableStatusCodes: 200..<400)
        let error = try? #require(throws: CurlewError.self) {
            try decoder.validate(Support.response(#"{"code":"c","message":"m"}"#, status: .created), acceptableStatusCodes: 200..<201)
        }
        #expect(error?.apiError(as: ServiceError.self)?.code == "c")
    }

    @Test func errorDecodingComposesWithOtherSerializers() throws {
        let serializer = use(.collection(of: User.self)).decodingErrors(as: ServiceError.self)
        #expect(try serializer.serialize(Support.response(#"[{"id":1}]"#)) == [User(id: 1)])
        let error = try? #require(throws: CurlewError.self) {
            try serializer.serialize(Support.response(#"{"code":"x","message":"y"}"#, status: .internalServerError))
        }
        #expect(error?.apiError(as: ServiceError.self)?.message == "y")
    }

    @Test func partsVariantForValidations() {
        let head = HTTPResponse(status: .forbidden)
        let error = APIErrorDecoder(ServiceError.self).error(
            url: Support.url, head: head, body: Data(#"{"code":"denied","message":"no"}"#.utf8))
        #expect(error.apiError(as: ServiceError.self)?.code == "denied")
        #expect(error.url == Support.url)
        #expect(APIErrorDecoder(ServiceError.self).error(url: nil, head: head, body: nil).underlying is DecodingError)
    }
}
