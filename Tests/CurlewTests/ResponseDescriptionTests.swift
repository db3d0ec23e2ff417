@testable import Curlew
import Foundation
import HTTPTypes
import Testing

/// `print(response)` and `debugPrint(response)` on responses built by hand: the layout, the
/// redaction of every secret Curlew knows, and the bounds of the body preview.
@Suite("Printing responses: description and debugDescription")
struct ResponseDescriptionTests {
    private static let url = URL(string: "https://ann:pa55word@api.example.com/v1/login?next=%2Fhome")!

    private func response<Value: Sendable>(
        _ value: Value, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:],
        request: OutgoingRequest = OutgoingRequest(url: url), redirects: [RedirectHop] = [], attempts: Int = 1
    ) -> Response<Value> {
        var metrics = TransferMetrics.zero
        metrics.total = .microseconds(12_540)
        metrics.httpVersion = .http1_1
        return Response(
            request: request, url: Self.url, head: HTTPResponse(status: status, headerFields: headers), value: value,
            metrics: metrics, redirects: redirects, attempts: attempts)
    }

    @Test func descriptionIsTheRequestLineAndStatus() {
        let post = OutgoingRequest(url: Self.url, method: .post)
        #expect(String(describing: response(Data(), status: .created, request: post))
            == "POST https://ann:***@api.example.com/v1/login?next=%2Fhome (201)")
    }

    @Test func debugDescriptionFollowsAlamofiresLayout() {
        let request = OutgoingRequest(url: Self.url, headerFields: [.accept: "application/json"])
        let printed = String(reflecting: response(
            Data(#"{"id":42}"#.utf8), headers: [.contentType: "application/json"], request: request))
        #expect(printed == """
            [Request]: GET https://ann:***@api.example.com/v1/login?next=%2Fhome
                [Headers]:
                    Accept: application/json
                [Body]: None
            [Response]: 200 OK
                [Headers]:
                    Content-Type: application/json
                [Body]:
                    {"id":42}
            [Network Duration]: 12.5 ms (HTTP/1.1, new connection)
            """)
    }

    @Test func everySecretIsRedacted() {
        var requestFields: HTTPFields = [
            .authorization: "Bearer tok-A", .proxyAuthorization: "Basic tok-B", .contentType: "application/x-www-form-urlencoded",
        ]
        requestFields[.cookie] = "sid=tok-C; theme=dark"
        let request = OutgoingRequest(
            url: Self.url, method: .post, headerFields: requestFields,
            body: .string("user=ann&password=tok-D&client_secret=tok-E"))
        var responseFields: HTTPFields = [.contentType: "application/json"]
        responseFields.append(HTTPField(name: .setCookie, value: "sid=tok-F; Path=/; HttpOnly"))
        responseFields.append(HTTPField(name: .setCookie, value: "flag"))
        let body = Data(#"{"access_token":"tok-G","refresh_token":"tok-H","user":{"id_token":"tok-I","name":"Ann"}}"#.utf8)
        let printed = String(reflecting: response(body, headers: responseFields, request: request))
        #expect(!printed.contains("tok-"), "\(printed)")
        #expect(!printed.contains("pa55word"), "\(printed)")
        #expect(printed.contains("Authorization: Bearer ***"))
        #expect(printed.contains("Proxy-Authorization: Basic ***"))
        #expect(printed.contains("Cookie: ***"))
        #expect(printed.contains("Set-Cookie: sid=***; Path=/; HttpOnly"), "name and attributes stay")
        #expect(printed.contains("Set-Cookie: ***"), "a value without a name is hidden whole")
        #expect(printed.contains("user=ann&password=***&client_secret=***"), "\(printed)")
        #expect(printed.contains(#""name":"Ann""#), "other fields stay: \(printed)")
    }

    @Test func theBodyPreviewIsBounded() {
        let long = String(repeating: "a", count: 5000)
        let printed = String(reflecting: response(Data(long.utf8), headers: [.contentType: "text/plain"]))
        #expect(printed.contains("\n        " + String(repeating: "a", count: 2048) + "\n        … 2952 more bytes\n"))
        #expect(printed.count < 2400)
        // A cut inside a UTF-8 sequence moves back to the character before it.
        let wide = String(repeating: "é", count: 1500)  // With the "x", byte 2048 is the first half of an "é".
        let cut = String(reflecting: response(Data(("x" + wide).utf8), headers: [.contentType: "text/plain"]))
        #expect(cut.contains("x" + String(repeating: "é", count: 1023) + "\n        … 954 more bytes"), "\(cut.suffix(200))")
    }

    @Test func binaryBodiesShowTheirSizeAndMultiLineBodiesStayIndented() {
        let binary = String(reflecting: response(Data([0, 0xFF, 0xFE, 1])))
        #expect(binary.contains("\n[Response]: 200 OK\n    [Headers]: None\n    [Body]: 4 bytes\n"), "\(binary)")
        let empty = String(reflecting: response(Data()))
        #expect(empty.contains("    [Body]: None\n[Network Duration]"), "\(empty)")
        let lines = String(reflecting: response("one\ntwo"))
        #expect(lines.contains("    [Body]:\n        one\n        two\n"), "a String value is shown as a body: \(lines)")
    }

    @Test func otherValuesRedirectsAndAttemptsAreListed() {
        struct User: Sendable, CustomStringConvertible {
            var description: String { "User(Ann)" }
        }
        let hop = RedirectHop(from: Self.url, to: Self.url, response: HTTPResponse(status: .found))
        let printed = String(reflecting: response(User(), redirects: [hop, hop], attempts: 3))
        #expect(printed.contains("\n[Value]: User(Ann)\n[Redirects]: 2\n[Attempts]: 3\n[Network Duration]: "), "\(printed)")
        let huge = String(reflecting: response(String(repeating: "z", count: 3000).map { $0 }))
        #expect(huge.contains("more characters)"), "long values are cut")
    }
}
