import Curlew
import Foundation
import Testing
import TestServer

/// `cURLDescription()` prints a command that sends what Curlew sends: run both against the
/// test server and compare the header lines it recorded.
@Suite("The curl command matches the wire")
struct CURLCommandWireTests {
    /// What Curlew sent, what the printed command sent through the curl CLI, and the command.
    private func sent(_ request: DataRequest) async throws -> (curlew: Echo, curl: Echo, command: String) {
        let command = request.cURLDescription()
        let curlew = try Fixtures.echo(try await request.data())
        let shell = try await ChildProcess.run("/bin/sh", ["-c", command + " --silent"])
        #expect(shell.status == 0, "\(shell.errorText)")
        return (curlew, try Fixtures.echo(shell.output), command)
    }

    /// Header lines as `name: value`, names in lowercase, sorted: the order may differ.
    private func lines(_ echo: Echo) -> [String] {
        echo.headerLines.map { ($0.first ?? "").lowercased() + ": " + ($0.last ?? "") }.sorted()
    }

    @Test func aPostWithoutBodyOrTypeGoesWithoutAFormTypeAsPrinted() async throws {
        let server = try await Fixtures.server()
        let (curlew, curl, command) = try await sent(Fixtures.session.request(server.url("/anything"), method: .post))
        #expect(curlew.method == "POST" && curl.method == "POST")
        #expect(curlew.headerLines(named: "content-type").isEmpty, "libcurl's form type was not asked for")
        #expect(curlew.headerLines(named: "content-length") == ["0"])
        #expect(command.contains("-H 'Content-Type:'"), "\(command)")
        #expect(lines(curl) == lines(curlew), "\(command)")
    }

    @Test func aBodyWithoutATypeGoesWithoutOneAsPrinted() async throws {
        let server = try await Fixtures.server()
        let request = Fixtures.session.request(server.url("/anything"), method: .put, body: .string("plain words"))
        let (curlew, curl, command) = try await sent(request)
        #expect(curlew.headerLines(named: "content-type").isEmpty)
        #expect(curl.body == curlew.body)
        #expect(lines(curl) == lines(curlew), "\(command)")
    }

    @Test func aStatedTypeIsSentAndPrintedOnce() async throws {
        let server = try await Fixtures.server()
        let request = Fixtures.session.request(
            server.url("/anything"), method: .post, headers: ["Content-Type": "application/json"], body: .string("{}"))
        let (curlew, curl, command) = try await sent(request)
        #expect(curlew.headerLines(named: "content-type") == ["application/json"])
        #expect(!command.contains("-H 'Content-Type:'"), "\(command)")
        #expect(lines(curl) == lines(curlew), "\(command)")
    }
}
