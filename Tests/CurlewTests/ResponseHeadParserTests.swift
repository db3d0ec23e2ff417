import Foundation
import HTTPTypes
import Testing

@testable import Curlew

@Suite("Response heads kept as bytes and built on first access")
struct ResponseHeadParserTests {
    /// Feeds `lines` (without CR LF; an empty one ends nothing here) and returns the parser.
    private func parsed(_ lines: [[UInt8]]) -> (ResponseHeadParser, [ResponseHeadParser.Line]) {
        var parser = ResponseHeadParser()
        let kinds = lines.map { line in line.withUnsafeBytes { parser.parse($0) } }
        return (parser, kinds)
    }

    private func parsed(_ lines: [String]) -> (ResponseHeadParser, [ResponseHeadParser.Line]) {
        parsed(lines.map { Array($0.utf8) })
    }

    private func head(_ lines: [String]) -> ResponseHead {
        var parser = parsed(lines).0
        return parser.takeHead()
    }

    @Test func aPlainHeadIsBuiltOnlyWhenRead() {
        let head = head(["HTTP/1.1 200 OK", "Content-Type: text/plain", "Content-Length: 5", "Server: t"])
        #expect(head.statusCode == 200)
        #expect(!head.isBuilt)
        let expected = HTTPResponse(
            status: HTTPResponse.Status(code: 200, reasonPhrase: "OK"),
            headerFields: [.contentType: "text/plain", .contentLength: "5", .server: "t"])
        #expect(head.response == expected)
        #expect(head.response.status.reasonPhrase == "OK")
        #expect(head.isBuilt)
    }

    @Test func repeatedFieldsStaySeparateAndInOrder() {
        let head = head([
            "HTTP/1.1 200 OK", "Set-Cookie: a=1", "X-Thing: one", "set-cookie: b=2", "X-THING: two", "Set-Cookie: c=3",
        ])
        let fields = Array(head.response.headerFields)
        #expect(fields.map(\.name.canonicalName) == ["set-cookie", "x-thing", "set-cookie", "x-thing", "set-cookie"])
        #expect(fields.map(\.value) == ["a=1", "one", "b=2", "two", "c=3"])
        #expect(head.response.headerFields[values: .setCookie] == ["a=1", "b=2", "c=3"])
    }

    @Test func emptyValuesAndBlanksAreKeptAsTheEagerParseKeptThem() {
        let head = head(["HTTP/2 204", "X-Empty:", "X-Blank: \t  ", "X-Padded:  v  ", "X-Tab:\tw"])
        #expect(head.response.status.code == 204)
        #expect(head.response.status.reasonPhrase == "")
        let name = { (text: String) in HTTPField.Name(text)! }
        #expect(Array(head.response.headerFields) == [
            HTTPField(name: name("X-Empty"), value: ""), HTTPField(name: name("X-Blank"), value: ""),
            HTTPField(name: name("X-Padded"), value: "v  "), HTTPField(name: name("X-Tab"), value: "w"),
        ])
    }

    @Test func nonASCIIValuesKeepTheirRawBytes() {
        let latin1: [UInt8] = Array("X-Latin: caf".utf8) + [0xE9]
        let utf8: [UInt8] = Array("X-Utf8: caf".utf8) + [0xC3, 0xA9]
        var parser = parsed([Array("HTTP/1.1 200 OK".utf8), latin1, utf8]).0
        let head = parser.takeHead()
        let fields = Array(head.response.headerFields)
        #expect(fields == [
            HTTPField(name: HTTPField.Name("X-Latin")!, value: Array("caf".utf8) + [0xE9]),
            HTTPField(name: HTTPField.Name("X-Utf8")!, value: Array("caf".utf8) + [0xC3, 0xA9]),
        ])
    }

    @Test func linesThatAreNoFieldsAreSkipped() {
        let head = head([
            "HTTP/1.1 200 OK", "no colon here", "Bad Name: x", ": no name", " folded: continuation", "Good: yes",
        ])
        #expect(Array(head.response.headerFields) == [HTTPField(name: HTTPField.Name("Good")!, value: "yes")])
    }

    @Test func aNewStatusLineDropsTheHeadBeforeIt() {
        let head = head(["HTTP/1.1 100 Continue", "X-Interim: 1", "HTTP/1.1 200 OK", "X-Final: 2"])
        #expect(head.statusCode == 200)
        #expect(Array(head.response.headerFields) == [HTTPField(name: HTTPField.Name("X-Final")!, value: "2")])
    }

    @Test func aTakenHeadKeepsItsBytesWhileTheParserReadsTheNextOne() {
        // A 401 held while libcurl answers its challenge, then the head that replaces it.
        var parser = parsed(["HTTP/1.1 401 Unauthorized", "WWW-Authenticate: Basic realm=\"r\"", "Content-Length: 0"]).0
        let held = parser.takeHead()
        for line in ["HTTP/1.1 200 OK", "Content-Type: application/json", "X-After: 1"] {
            _ = Array(line.utf8).withUnsafeBytes { parser.parse($0) }
        }
        let final = parser.takeHead()
        #expect(held.response.status.code == 401)
        #expect(held.response.status.reasonPhrase == "Unauthorized")
        #expect(held.response.headerFields[.wwwAuthenticate] == "Basic realm=\"r\"")
        #expect(held.response.headerFields.count == 2)
        #expect(final.response.headerFields.count == 2)
        #expect(final.response.headerFields[.contentType] == "application/json")
    }

    @Test func malformedStatusLinesAreToldApart() {
        for line in ["HTTP/1.1 2000 OK", "HTTP/1.1 20", "HTTP/1.1 099 Low", "HTTP/1.1 600 High", "HTTP/1.1", "HTTP/1.1 2x0 OK"] {
            #expect(parsed([line]).1 == [.malformedStatusLine], "\(line)")
        }
        let (parser, kinds) = parsed(["HTTP/2 200", ""])
        #expect(kinds == [.statusLine, .blank])
        #expect(parser.statusCode == 200)
    }

    @Test func theFieldsTheTransferReadsAreNoted() {
        let notes = parsed([
            "HTTP/1.1 302 Found", "LOCATION: /x", "Content-Encoding: gzip", "transfer-encoding: chunked",
            "Set-Cookie: a=1", "Content-Length: 12 ", "Content-Length: 12",
        ]).0.notes
        #expect(notes.hasLocation && notes.hasContentEncoding && notes.hasTransferEncoding && notes.hasSetCookie)
        #expect(notes.contentLength == 12)
        #expect(!notes.hasInvalidContentLength)
        let plain = parsed(["HTTP/1.1 200 OK", "X-Location: /y", "Content-Length: 3"]).0.notes
        #expect(!plain.hasLocation && !plain.hasContentEncoding && !plain.hasTransferEncoding && !plain.hasSetCookie)
        #expect(parsed(["HTTP/1.1 200 OK", "Content-Length: 3", "Content-Length: 4"]).0.notes.hasInvalidContentLength)
        #expect(parsed(["HTTP/1.1 200 OK", "Content-Length: x"]).0.notes.hasInvalidContentLength)
    }

    @Test(arguments: [
        [String](), ["Content-Type: text/html; charset=utf-8"], ["Content-Type: text/html  "],
        ["content-type: a/b", "Content-Type: c/d"], ["X-Other: 1"],
    ])
    func theContentTypeFoundWithoutBuildingIsTheBuiltOne(_ fields: [String]) {
        let quick = head(["HTTP/1.1 200 OK"] + fields)
        let value = quick.contentType
        #expect(value == head(["HTTP/1.1 200 OK"] + fields).response.headerFields[.contentType])
        // Only several Content-Type fields, which the head joins, make it build the head.
        #expect(quick.isBuilt == (fields.count == 2 && fields[0].lowercased().hasPrefix("content-type")))
    }

    @Test func theStandardValidationPassesWithoutBuildingTheHead() throws {
        let url = try #require(URL(string: "http://example.test/x"))
        let plain = OutgoingRequest(url: url)
        var wantsJSON = plain
        wantsJSON.headerFields[.accept] = "application/json"
        let json = head(["HTTP/1.1 200 OK", "Content-Type: application/json; charset=utf-8"])
        #expect(ValidationStep.passesStandard(json, request: plain))
        #expect(ValidationStep.passesStandard(json, request: wantsJSON))
        #expect(!json.isBuilt)
        #expect(!ValidationStep.passesStandard(head(["HTTP/1.1 200 OK", "Content-Type: text/html"]), request: wantsJSON))
        #expect(!ValidationStep.passesStandard(head(["HTTP/1.1 404 Not Found"]), request: plain))
    }

    @Test func aFailedStandardValidationReadsAsTheChecksThemselves() throws {
        let url = try #require(URL(string: "http://example.test/x"))
        var request = OutgoingRequest(url: url)
        for (lines, accept) in [(["HTTP/1.1 404 Not Found", "Content-Type: text/plain"], nil), (["HTTP/1.1 200 OK", "Content-Type: text/html"], "application/json")] {
            request.headerFields[.accept] = accept
            let lazy = head(lines)
            let viaStep = #expect(throws: CurlewError.self) { try ValidationStep.standard.run(lazy, request: request, body: Data("b".utf8)) }
            let direct = #expect(throws: CurlewError.self) {
                for check in Validators.standard { try check(request, head(lines).response, Data("b".utf8)) }
            }
            #expect(viaStep?.kind == direct?.kind)
            #expect(viaStep?.message == direct?.message)
            #expect(viaStep?.responseHead == direct?.responseHead)
        }
    }
}
