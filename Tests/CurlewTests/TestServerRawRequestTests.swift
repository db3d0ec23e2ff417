import Foundation
import Synchronization
import Testing
import TestServer

/// The in-process test server keeps what it received as it arrived and does not paper over
/// what it cannot parse: checked with the `curl` command-line tool, independently of Curlew.
@Suite("Test server: raw requests, strict parsing")
struct TestServerRawRequestTests {
    /// curl's output for `arguments` plus the URL of `path` on the shared server.
    private func curl(_ path: String, _ arguments: [String] = []) async throws -> ChildProcess.Result {
        let server = try await Fixtures.server()
        let result = try await CurlCLI.run(["-s", "--path-as-is"] + arguments + [String(server.url("/").absoluteString.dropLast()) + path])
        #expect(result.status == 0, "curl failed: \(result.errorText)")
        return result
    }

    /// The status code and body of a request that should be refused.
    private func refused(_ path: String, _ arguments: [String] = []) async throws -> (Int, String) {
        let result = try await curl(path, ["-w", "\n%{http_code}"] + arguments)
        let lines = result.text.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    @Test func repeatedHeaderLinesStayApartAndInOrder() async throws {
        let result = try await curl("/anything", ["-H", "X-Probe: one", "-H", "X-Other: between", "-H", "X-Probe: two, three"])
        let echo = try Fixtures.echo(result.output)
        #expect(echo.headerLines(named: "x-probe") == ["one", "two, three"])
        let names = echo.headerLines.compactMap(\.first).filter { $0.hasPrefix("X-") }
        #expect(names == ["X-Probe", "X-Other", "X-Probe"], "names as sent, in order")
        // The joined convenience view is still there, and says it joins.
        #expect(echo.headers["x-probe"] == "one, two, three")
    }

    @Test func theTargetIsKeptAsSentAndQueryPairsKeepDuplicates() async throws {
        let target = "/anything/./a%2Fb?x=1&x=2&x=&y=a+b%26c"
        let echo = try Fixtures.echo(try await curl(target).output)
        #expect(echo.rawTarget == target)
        #expect(echo.queryPairs == [["x", "1"], ["x", "2"], ["x", ""], ["y", "a b&c"]])
        #expect(echo.args["x"] == .many(["1", "2", ""]))
    }

    @Test func badPercentEncodingIsRefusedNotPassedThrough() async throws {
        let (query, queryMessage) = try await refused("/anything?q=%ZZ")
        #expect(query == 400)
        #expect(queryMessage.contains("percent-encoded"), "\(queryMessage)")
        let (path, pathMessage) = try await refused("/anything/%FF")
        #expect(path == 400, "not valid UTF-8 once decoded")
        #expect(pathMessage.contains("%FF"), "\(pathMessage)")
        let form = try await refused(
            "/anything", ["-H", "Content-Type: application/x-www-form-urlencoded", "--data-binary", "a=1&b=%G1"])
        #expect(form.0 == 400)
        #expect(form.1.contains("form body"), "\(form.1)")
    }

    @Test func aSingleValuedFieldOnSeveralLinesIsRefused() async throws {
        // The echo reads Content-Type to decide how to parse the body: it must not pick a line.
        let (status, message) = try await refused(
            "/anything", ["-H", "Content-Type: text/plain", "-H", "Content-Type: application/json", "--data-binary", "{}"])
        #expect(status == 400)
        #expect(message.contains("2 'Content-Type' lines"), "\(message)")
        let (repeatedQuery, _) = try await refused("/status/302?location=/a&location=/b")
        #expect(repeatedQuery == 400)
    }

    @Test func formPairsKeepOrderAndDuplicates() async throws {
        let result = try await curl(
            "/anything", ["-H", "Content-Type: application/x-www-form-urlencoded", "--data-binary", "b=2&a=1&b=%C3%A9"])
        let object = try result.jsonObject()
        #expect(object["formPairs"] as? [[String]] == [["b", "2"], ["a", "1"], ["b", "é"]])
    }

    // MARK: Multipart

    private func multipart(_ parts: [String]) async throws -> (Int, String) {
        let body = parts.map { "--sep\r\n" + $0 + "\r\n" }.joined() + "--sep--\r\n"
        return try await refused(
            "/anything", ["-H", "Content-Type: multipart/form-data; boundary=sep", "--data-binary", body])
    }

    @Test func multipartQuotedValuesWithEscapesAndNoInventedType() async throws {
        let (status, text) = try await multipart([
            "Content-Disposition: form-data; name=\"say \\\"hi\\\"; now\"\r\n\r\nvalue",
            "Content-Disposition: form-data; name=\"file\"; filename=\"a.bin\"\r\n\r\ncontent",
        ])
        #expect(status == 200, "\(text)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["formPairs"] as? [[String]] == [["say \"hi\"; now", "value"]])
        let file = try #require((object["files"] as? [String: Any])?["file"] as? [String: Any])
        #expect(file["filename"] as? String == "a.bin")
        #expect(file["contentType"] is NSNull, "a part without Content-Type has none: \(file)")
        #expect(file["content"] as? String == "content")
    }

    @Test(arguments: [
        ("Content-Disposition: form-data; name=plain\r\n\r\nv", "not quoted"),
        ("Content-Disposition: form-data; name=\"a\"b\"\r\n\r\nv", "expected ';'"),
        ("Content-Disposition: form-data; name=\"open\r\n\r\nv", "unterminated"),
        ("Content-Disposition: form-data; filename=\"x.txt\"\r\n\r\nv", "has no name"),
        ("Content-Disposition: form-data\r\n\r\nv", "has no name"),
        ("Content-Disposition: form-data; name=\"a\"; name=\"b\"\r\n\r\nv", "appears twice"),
        ("Content-Disposition: attachment; name=\"a\"\r\n\r\nv", "not form-data"),
        ("\r\nno headers", "no header section"),
    ])
    func malformedMultipartPartsAreRefused(part: String, reason: String) async throws {
        let (status, message) = try await multipart(["Content-Disposition: form-data; name=\"ok\"\r\n\r\nfine", part])
        #expect(status == 400)
        #expect(message.contains(reason), "\(message)")
    }

    // MARK: ScriptedHTTPServer

    @Test func scriptedRequestsKeepLinesAndPairsAndRefuseAmbiguity() async throws {
        let calls = Mutex(0)
        let server = try await ScriptedHTTPServer.start { request in
            calls.withLock { $0 += 1 }
            switch request.path {
            case "/lines":
                return .json([
                    "lines": request.headerLines(named: "X-Key"), "values": request.query.values(named: "v"),
                    "raw": request.rawTarget,
                ])
            default:
                // Reads one value: ambiguous when the field or parameter came twice.
                return .text("\(request.header("X-Key") ?? "-") \(request.query["v"] ?? "-")")
            }
        }
        func run(_ path: String, _ headers: [String]) async throws -> (Int, String) {
            let result = try await CurlCLI.run(
                ["-s", "-w", "\n%{http_code}"] + headers.flatMap { ["-H", $0] } + [String(server.url("/").absoluteString.dropLast()) + path])
            let lines = result.text.split(separator: "\n", omittingEmptySubsequences: false)
            return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
        }
        let (status, body) = try await run("/lines?v=1&v=2", ["X-Key: a", "X-Key: b"])
        #expect(status == 200)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        #expect(object["lines"] as? [String] == ["a", "b"])
        #expect(object["values"] as? [String] == ["1", "2"])
        #expect(object["raw"] as? String == "/lines?v=1&v=2")

        #expect(try await run("/one?v=1", ["X-Key: a"]) == (200, "a 1"))
        let twoLines = try await run("/one?v=1", ["X-Key: a", "X-Key: b"])
        #expect(twoLines.0 == 400)
        #expect(twoLines.1.contains("2 'X-Key' lines"), "\(twoLines.1)")
        let twoValues = try await run("/one?v=1&v=2", ["X-Key: a"])
        #expect(twoValues.0 == 400)
        #expect(twoValues.1.contains("2 'v' query parameters"), "\(twoValues.1)")

        // A query that does not decode is refused before the handler runs.
        let before = calls.withLock { $0 }
        let undecodable = try await run("/one?v=%ZZ", [])
        #expect(undecodable.0 == 400)
        #expect(calls.withLock { $0 } == before)
        await server.shutdown()
    }
}
