import Foundation
import Testing
import TestServer

/// Exit statuses, and bad input: one line on standard error, a non-zero status, no output.
@Suite(.temporaryFolders) struct CLIExitStatusTests {
    @Test(arguments: [(301, Int32(3)), (404, 4), (418, 4), (503, 5), (200, 0), (204, 0)])
    func checkStatusMapsTheStatusClass(code: Int, expected: Int32) async throws {
        try await withServer { server in
            let run = try await CLI.run(["--check-status", server.url("/status/\(code)").absoluteString])
            #expect(run.status == expected, "\(run.errorOutput)")
            if expected != 0 {
                #expect(run.errorLines.count == 1)
                #expect(run.errorLines.first?.hasPrefix("curlew: warning: HTTP \(code)") == true)
            }
        }
    }

    @Test func withoutCheckStatusAnErrorStatusExitsZero() async throws {
        try await withServer { server in
            let run = try await CLI.run([server.url("/status/500").absoluteString])
            #expect(run.status == 0)
        }
    }

    @Test func connectionRefusedExitsSeven() async throws {
        let port = try RefusingPort.make()
        let run = try await CLI.run(["http://127.0.0.1:\(port)/get"])
        #expect(run.status == 7)
        #expect(run.errorLines.count == 1)
        #expect(run.errorLines.first?.hasPrefix("curlew: error: connectionRefused") == true, "\(run.errorOutput)")
    }

    @Test func timeoutExitsTwo() async throws {
        try await withServer { server in
            let run = try await CLI.run(["--timeout", "0.2", server.url("/delay/60000").absoluteString])
            #expect(run.status == 2, "\(run.errorOutput)")
            #expect(run.errorLines.count == 1)
        }
    }

    @Test func tooManyRedirectsExitsSix() async throws {
        try await withServer { server in
            let run = try await CLI.run(["--follow", "--max-redirects", "2", server.url("/redirect/5").absoluteString])
            #expect(run.status == 6, "\(run.errorOutput)")
            #expect(run.errorLines.count == 1)
        }
    }

    @Test func redirectsAreFollowedOnlyWhenAsked() async throws {
        try await withServer { server in
            let followed = try await CLI.run(["-F", server.url("/redirect/2").absoluteString])
            #expect(followed.status == 0)
            #expect(try followed.json()["path"] as? String == "/get")
            let notFollowed = try await CLI.run(["--print=h", server.url("/redirect/2").absoluteString])
            #expect(notFollowed.output.hasPrefix("HTTP/1.1 302"))
        }
    }

    /// Each bad input: one line on standard error, status 64, nothing on standard output, and
    /// no request sent.
    @Test(arguments: [
        (["URL", "novalue"], "curlew: error: invalid item 'novalue'"),
        (["URL", "f@/no/such/file"], "curlew: error: file field 'f@/no/such/file': no such file: /no/such/file"),
        (["URL", "@/no/such/body"], "curlew: error: body '@/no/such/body': no such file: /no/such/body"),
        (["URL", "n:=nope"], "curlew: error: invalid item 'n:=nope': the value is not valid JSON"),
        (["URL", "Bad Header:x"], "curlew: error: invalid item 'Bad Header:x': 'Bad Header' is not a valid header name"),
        (["URL", "=x"], "curlew: error: invalid item '=x': the name before '=' is empty"),
        (["http://"], "curlew: error: malformed URL 'http://'"),
        (["ftp://example.com/x"], "curlew: error: unsupported URL scheme 'ftp'"),
        ([String](), "curlew: error: no URL given"),
        (["--print=hx", "URL"], "curlew: error: --print: unknown part 'x'"),
        (["--nope", "URL"], "curlew: error: Unknown option '--nope'"),
        (["--pretty=loud", "URL"], "curlew: error: The value 'loud' is invalid for '--pretty"),
        (["--form", "URL", "a:=1"], "curlew: error: --form sends text fields only"),
        (["--form", "--json", "URL"], "curlew: error: choose one of --json, --form, --multipart"),
        (["--timeout=-1", "URL"], "curlew: error: --timeout must be a positive number"),
        (["--auth", "nocolon", "URL"], "curlew: error: --auth needs user:password"),
        (["--continue", "URL"], "curlew: error: --continue needs --download and --output"),
        (["--pin", "abc", "URL"], "curlew: error: --pin 'abc': expected sha256//"),
        (["--cacert", "/no/ca.pem", "URL"], "curlew: error: --cacert: no such file: /no/ca.pem"),
        (["--proxy", "gopher://h:1", "URL"], "curlew: error: --proxy 'gopher://h:1': unknown scheme"),
        (["--session", "../x", "URL"], "curlew: error: --session '../x': a name of letters"),
        (["--oauth2", "/no/token.json", "URL"], "curlew: error: --oauth2: no such file: /no/token.json"),
    ])
    func badInputIsOneLine(arguments: [String], line: String) async throws {
        try await withServer { server in
            let url = server.url("/get").absoluteString
            let run = try await CLI.run(arguments.map { $0 == "URL" ? url : $0 })
            #expect(run.status == 64, "\(run.errorOutput)")
            #expect(run.errorLines.count == 1, "\(run.errorOutput)")
            #expect(run.errorLines.first?.hasPrefix(line) == true, "\(run.errorOutput)")
            #expect(run.output.isEmpty)
            #expect(server.totalRequestCount == 0)
        }
    }

    @Test func helpListsTheExitStatusesAndItems() async throws {
        let run = try await CLI.run(["--help"])
        #expect(run.status == 0)
        for text in ["EXIT STATUS:", "64  bad input", "field:=json", "--check-status", "--download", "--session", "--oauth2"] {
            #expect(run.output.contains(text), "\(text)")
        }
    }
}
