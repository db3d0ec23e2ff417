import Foundation
import HTTPTypes
import Testing

@testable import Curlew

@Suite("Response heads kept as bytes and built on first access")
struct ResponseHeadParserTests {
    /// `lines` as the C header callback keeps them: each ended by CR LF, then (when `ended`)
    /// the blank line that ends the head.
    private func bytes(_ lines: [[UInt8]], ended: Bool = true) -> [UInt8] {
        lines.flatMap { $0 + [0x0D, 0x0A] } + (ended ? [0x0D, 0x0A] : [])
    }

    /// Reads `lines` and returns the parser and what it read.
    private func parsed(_ lines: [String], ended: Bool = true) -> (ResponseHeadParser, ResponseHeadParser.Reading) {
        var parser = ResponseHeadParser()
        let reading = bytes(lines.map { Array($0.utf8) }, ended: ended).withUnsafeBytes { parser.read($0) }
        return (parser, reading)
    }

    /// The head of `bytes`, taken while they are valid.
    private func head(bytes: [UInt8]) -> ResponseHead {
        var parser = ResponseHeadParser()
        return bytes.withUnsafeBytes { buffer in
            #expect(parser.read(buffer) == .ended)
            return parser.takeHead()
        }
    }

    private func head(_ lines: [String]) -> ResponseHead {
        head(bytes: bytes(lines.map { Array($0.utf8) }))
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
        let head = head(bytes: bytes([Array("HTTP/1.1 200 OK".utf8), latin1, utf8]))
        let fields = Array(head.response.headerFields)
        #expect(fields == [
            HTTPField(name: HTTPField.Name("X-Latin")!, value: Array("caf".utf8) + [0xE9]),
            HTTPField(name: HTTPField.Name("X-Utf8")!, value: Array("caf".utf8) + [0xC3, 0xA9]),
        ])
    }

    @Test func linesEndedByLFAloneReadAsLinesEndedByCRLF() {
        let head = head(bytes: Array("HTTP/1.1 201 Made\nX-One: 1\r\nX-Two: 2\n\n".utf8))
        #expect(head.statusCode == 201)
        #expect(head.response.status.reasonPhrase == "Made")
        #expect(head.response.headerFields[HTTPField.Name("X-One")!] == "1")
        #expect(head.response.headerFields[HTTPField.Name("X-Two")!] == "2")
        #expect(head.response.headerFields.count == 2)
    }

    @Test func linesWithoutABlankOneAreAnUnfinishedHead() {
        let (parser, reading) = parsed(["HTTP/1.1 200 OK", "X-A: 1"], ended: false)
        #expect(reading == .unfinished)
        #expect(parser.sawStatusLine)
        var noStatus = ResponseHeadParser()
        #expect(Array("X-A: 1".utf8).withUnsafeBytes { noStatus.read($0) } == .unfinished)
        #expect(!noStatus.sawStatusLine)
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
        var parser = ResponseHeadParser()
        var first = bytes(["HTTP/1.1 401 Unauthorized", "WWW-Authenticate: Basic realm=\"r\"", "Content-Length: 0"].map { Array($0.utf8) })
        let held = first.withUnsafeBytes { buffer in
            _ = parser.read(buffer)
            return parser.takeHead()
        }
        // The buffer is reused for the next head, as the C side reuses its own.
        first.replaceSubrange(0..., with: bytes(["HTTP/1.1 200 OK", "Content-Type: application/json", "X-After: 1"].map { Array($0.utf8) }))
        let final = first.withUnsafeBytes { buffer in
            _ = parser.read(buffer)
            return parser.takeHead()
        }
        #expect(held.response.status.code == 401)
        #expect(held.response.status.reasonPhrase == "Unauthorized")
        #expect(held.response.headerFields[.wwwAuthenticate] == "Basic realm=\"r\"")
        #expect(held.response.headerFields.count == 2)
        #expect(final.response.headerFields.count == 2)
        #expect(final.response.headerFields[.contentType] == "application/json")
    }

    @Test func malformedStatusLinesAreToldApart() {
        for line in ["HTTP/1.1 2000 OK", "HTTP/1.1 20", "HTTP/1.1 099 Low", "HTTP/1.1 600 High", "HTTP/1.1", "HTTP/1.1 2x0 OK"] {
            #expect(parsed([line]).1 == .malformedStatusLine(line), "\(line)")
        }
        // Also after a valid head's status line, and cut at 80 bytes in the message.
        let long = "HTTP/1.1 20 " + String(repeating: "x", count: 100)
        #expect(parsed(["HTTP/1.1 200 OK", "X-A: 1", long]).1 == .malformedStatusLine(String(long.prefix(80))))
        let (parser, reading) = parsed(["HTTP/2 200"])
        #expect(reading == .ended)
        #expect(parser.statusCode == 200)
        #expect(parser.sawStatusLine)
        let (fieldsOnly, fieldsReading) = parsed(["X-A: 1"])
        #expect(fieldsReading == .ended)
        #expect(fieldsOnly.statusCode == 0, "no status line: the transfer fails the head")
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
