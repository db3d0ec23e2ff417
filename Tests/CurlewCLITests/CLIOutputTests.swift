import Foundation
import Testing
import TestServer

/// What `curlew` prints: `--print`, `--pretty`, `--verbose`, and the terminal defaults.
@Suite(.temporaryFolders) struct CLIOutputTests {
    static let escape = "\u{1B}["

    @Test func pipedOutputIsTheBodyAloneUnformatted() async throws {
        try await withServer { server in
            let run = try await CLI.run([server.url("/get").absoluteString])
            #expect(run.status == 0)
            #expect(run.output.hasPrefix("{"))
            #expect(!run.output.contains(Self.escape))
            #expect(!run.output.contains("HTTP/1.1"))
        }
    }

    @Test func printSelectsTheParts() async throws {
        try await withServer { server in
            let headersOnly = try await CLI.run(["--print=h", server.url("/get").absoluteString])
            #expect(headersOnly.output.hasPrefix("HTTP/1.1 200 OK\n"))
            #expect(headersOnly.output.lowercased().contains("content-type: application/json"))
            #expect(!headersOnly.output.contains("\"method\""))

            let both = try await CLI.run(["-p", "Hh", server.url("/get").absoluteString, "X-Mine:1"])
            #expect(both.output.hasPrefix("GET /get HTTP/1.1\n"))
            #expect(both.output.contains("X-Mine: 1"))
            #expect(both.output.contains("Host: 127.0.0.1:\(server.port)"))
            #expect(both.output.contains("\n\nHTTP/1.1 200 OK\n"))

            let requestBody = try await CLI.run(["--print=B", server.url("/post").absoluteString, "a=1"])
            #expect(requestBody.output == "{\"a\": \"1\"}\n")

            let headersFlag = try await CLI.run(["--headers", server.url("/get").absoluteString])
            #expect(headersFlag.output.hasPrefix("HTTP/1.1 200 OK\n"))
        }
    }

    @Test func verbosePrintsRequestResponseAndTiming() async throws {
        try await withServer { server in
            let run = try await CLI.run(["-v", server.url("/post").absoluteString, "a=1", "Authorization:Bearer s3cret"])
            #expect(run.status == 0)
            #expect(run.output.hasPrefix("POST /post HTTP/1.1\n"))
            #expect(run.output.contains("Authorization: Bearer ***"))
            let requestPart = try #require(run.output.components(separatedBy: "HTTP/1.1 200 OK").first)
            #expect(!requestPart.contains("s3cret"))
            #expect(run.output.contains("{\"a\": \"1\"}"))
            #expect(run.output.contains("HTTP/1.1 200 OK"))
            for phase in ["DNS lookup", "connect", "TLS handshake", "first byte", "total"] {
                #expect(run.errorOutput.contains("* \(phase)"), "\(run.errorOutput)")
            }
            #expect(run.errorOutput.contains("* HTTP/1.1, new connection to 127.0.0.1:\(server.port)"))
        }
    }

    /// The head printed is the one libcurl sent (from the wire trace): fields the session adds
    /// show, credentials libcurl adds are `***`, and the head is the final hop's.
    @Test func theRequestHeadPrintedIsTheOneSent() async throws {
        try await withServer { server in
            let run = try await CLI.run([
                "--print=H", "--follow", "--auth", "ann:pa55word", server.url("/redirect-to").absoluteString,
                "url==/get", "status_code==302",
            ])
            #expect(run.status == 0, "\(run.errorOutput)")
            #expect(run.output.hasPrefix("GET /get HTTP/1.1\n"), "\(run.output)")
            #expect(run.output.contains("\nAccept-Encoding: "), "\(run.output)")
            #expect(run.output.contains("\nAuthorization: ***") || run.output.contains("\nAuthorization: Basic ***"), "\(run.output)")
            #expect(!run.output.contains("pa55word") && !run.output.contains("YW5uOnBhNTV3b3Jk"))
        }
    }

    @Test func prettyFormatIndentsWithoutColours() async throws {
        try await withServer { server in
            let run = try await CLI.run(["--pretty=format", server.url("/get").absoluteString, "a==1"])
            #expect(run.output.contains("\n    \"args\": {\n        \"a\": \"1\"\n    }"))
            #expect(!run.output.contains(Self.escape))
        }
    }

    @Test func prettyColorsColoursWithoutIndenting() async throws {
        try await withServer { server in
            let run = try await CLI.run(["--pretty=colors", server.url("/get").absoluteString])
            #expect(run.output.contains(Self.escape + "34;1m\"method\"" + Self.escape + "0m"))
            #expect(!run.output.contains("\n    "))
        }
    }

    @Test func prettyNoneKeepsTheBytes() async throws {
        try await withServer { server in
            let run = try await CLI.run(["--pretty=none", "--print=b", server.url("/get").absoluteString])
            #expect(run.output.hasPrefix("{\""))
        }
    }

    @Test func xmlIsFormatted() async throws {
        try await withServer { server in
            let run = try await CLI.run(["--pretty=format", server.url("/xml").absoluteString])
            #expect(run.output.contains("<catalog name=\"test\">"))
            #expect(run.output.contains("\n  <book id=\"1\" lang=\"en\">"))
        }
    }

    /// In a terminal: headers and body, coloured, formatted; NO_COLOR keeps the formatting only.
    @Test func terminalOutputIsColouredAndFormatted() async throws {
        try await withServer { server in
            let run = try await CLI.runInTerminal([server.url("/get").absoluteString])
            #expect(run.status == 0, "\(run.output)")
            #expect(run.output.contains(Self.escape + "32;1m200 OK"), "\(run.output)")
            #expect(run.output.contains(Self.escape + "34;1m\"method\""))
            #expect(run.output.contains("\n    "))

            let bodyOnly = try await CLI.runInTerminal(["--body", server.url("/content-type?type=text/plain&body=hi").absoluteString])
            #expect(!bodyOnly.output.contains("HTTP/1.1"))
            #expect(bodyOnly.output.hasSuffix("hi\r\n"), "a body on a terminal ends its line: \(bodyOnly.output.debugDescription)")

            let plain = try await CLI.runInTerminal([server.url("/get").absoluteString], environment: ["NO_COLOR": "1"])
            #expect(!plain.output.contains(Self.escape))
            #expect(plain.output.contains("HTTP/1.1 200 OK"))
            #expect(plain.output.contains("\n    \"method\": \"GET\""))
        }
    }

    @Test func binaryBodiesAreNotWrittenToATerminal() async throws {
        try await withServer { server in
            let run = try await CLI.runInTerminal([server.url("/bytes/300").absoluteString])
            #expect(run.output.contains("NOTE: binary data not shown in terminal"))
            let piped = try await CLI.run([server.url("/bytes/300").absoluteString])
            #expect([UInt8](piped.outputData) == TestServer.expectedBytes(count: 300))
        }
    }

    @Test func outputOptionWritesTheBodyToAFile() async throws {
        try await withServer { server in
            let file = try TemporaryFolder.make().appendingPathComponent("out.json")
            let run = try await CLI.run(["-o", file.path, server.url("/get").absoluteString])
            #expect(run.status == 0)
            #expect(run.output.isEmpty)
            let written = try String(contentsOf: file, encoding: .utf8)
            #expect(written.contains("\"method\":\"GET\"") || written.contains("\"method\": \"GET\""))
        }
    }

    @Test func jqPathSelectsFromJSON() async throws {
        try await withServer { server in
            let run = try await CLI.run(["--jq-path", "args.a", server.url("/get").absoluteString, "a==x"])
            #expect(run.output == "\"x\"\n")
            let lines = try await CLI.run(["--jq-path", "[1].id", server.url("/content-type?type=application/json&body=%5B%7B%22id%22%3A1%7D%2C%7B%22id%22%3A2%7D%5D").absoluteString])
            #expect(lines.output == "2\n", "\(lines.errorOutput)")
            let missing = try await CLI.run(["--jq-path", "args.nope", server.url("/get").absoluteString])
            #expect(missing.status == 1)
            #expect(missing.errorLines == ["curlew: error: --jq-path 'args.nope': no key 'nope'"])
        }
    }

    @Test func xpathSelectsFromXML() async throws {
        try await withServer { server in
            let run = try await CLI.run(["--xpath", "//book[@lang='fr']/title/text()", server.url("/xml").absoluteString])
            #expect(run.output == "Réseaux\n", "\(run.errorOutput)")
            let count = try await CLI.run(["--xpath", "count(//book)", server.url("/xml").absoluteString])
            #expect(count.output == "2\n", "\(count.errorOutput)")
            let bad = try await CLI.run(["--xpath", "//[", server.url("/xml").absoluteString])
            #expect(bad.status == 1)
            #expect(bad.errorLines.count == 1)
            let nothing = try await CLI.run(["--xpath", "//magazine", server.url("/xml").absoluteString])
            #expect(nothing.status == 1)
            #expect(nothing.errorLines == ["curlew: error: --xpath '//magazine': matches nothing"])
        }
    }
}
