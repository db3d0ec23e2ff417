import Curlew
import CurlewTesting
import Foundation
import HTTPTypes
import Testing
import TestServer

/// Record once against the real test server, then replay from the HAR file with the server
/// gone: the same statuses and bodies, redirects followed through recorded hops, and the file
/// accepted by an independent HAR reader in between.
@Suite("HAR record and replay")
struct HARReplayTests {
    private static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-cassette-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        return folder
    }

    private struct Seen: Equatable {
        let status: Int
        let body: Data
        let finalPath: String
    }

    private static func exercise(_ session: Session, base: (String) -> URL) async throws -> [Seen] {
        var seen: [Seen] = []
        for (url, method, body) in [
            (base("/get?page=2"), HTTPRequest.Method.get, nil as Data?),
            (base("/redirect/2"), .get, nil),
            (base("/post"), .post, Data(#"{"name":"curlew"}"#.utf8)),
            (base("/status/404"), .get, nil),
        ] {
            let headers: RequestHeaders = body == nil ? [:] : ["Content-Type": "application/json"]
            let request = session.request(url, method: method, headers: headers, body: body.map { RequestBody.data($0) })
            let response = try await request.response
            seen.append(Seen(status: response.status.code, body: response.value, finalPath: response.url.path))
        }
        return seen
    }

    @Test func aRecordingReplaysTheSameResponsesWithoutTheServer() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("exchanges.har")

        let server = try await TestServer.start()
        let recording = try HARCassette(file: file)
        #expect(recording.isRecording)
        let recorded = try await Self.exercise(recording.session) { server.url($0) }
        // A secret in the query: redacted in the file (so replay answers it for any value).
        _ = try await recording.session.request(server.url("/get?access_token=s3cret")).response
        try await recording.finish()
        try await server.shutdown()
        #expect(recorded.map(\.status) == [200, 200, 201, 404] || recorded.map(\.status) == [200, 200, 200, 404], "\(recorded.map(\.status))")
        #expect(recorded[1].finalPath == "/get", "the redirect chain was followed while recording")

        // An independent reader accepts the file (jsonschema and haralyzer, see Tests/CurlewTests).
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("CurlewTests/Resources/HAR/validate-har.py").path
        let check = try await ChildProcess.run("/usr/bin/env", ["python3", script, file.path])
        #expect(check.status == 0, "\(String(decoding: check.errorOutput, as: UTF8.self))")
        // Request URLs are redacted (the echoing server's response bodies are kept as sent).
        let urls = try HARArchive(contentsOf: file).log.entries.map(\.request.url)
        #expect(urls.contains { $0.contains("access_token=") } && !urls.contains { $0.contains("s3cret") }, "\(urls)")

        // The server is gone: only the file can answer now.
        let replay = try HARCassette(file: file)
        #expect(!replay.isRecording)
        let replayed = try await Self.exercise(replay.session) { server.url($0) }
        try await replay.finish()
        #expect(replayed == recorded)
        let stubs = try #require(replay.stubs)
        #expect(stubs.unmatchedRequests.isEmpty)
        #expect(stubs.receivedRequests.count == 6, "four requests and two recorded redirect hops")
    }

    @Test func aRedactedQueryValueMatchesAnyValueAndOthersMustBeEqual() async throws {
        let archive = HARArchive(log: HARLog(creator: HARCreator(name: "test", version: "1"), entries: [
            HAREntry(
                startedDateTime: Date(), time: 1,
                request: HARRequest(method: "GET", url: "https://api.test/items?page=1&token=***", httpVersion: "HTTP/1.1"),
                response: HARResponse(
                    status: 200, statusText: "OK", httpVersion: "HTTP/1.1",
                    headers: [HARHeader(name: "Content-Type", value: "text/plain"), HARHeader(name: "Content-Encoding", value: "gzip")],
                    content: HARContent(size: 5, mimeType: "text/plain", text: "aGVsbG8=", encoding: "base64")),
                timings: HARTimings(send: 0, wait: 1, receive: 0)),
        ]))
        let stubs = HTTPStubs()
        try stubs.register(replaying: archive)
        let session = Session(configuration: .stubbed(by: stubs))
        let text = try await session.request(#require(URL(string: "https://api.test/items?page=1&token=real"))).string()
        #expect(text == "hello", "base64 decoded; the recorded Content-Encoding is not replayed over a decoded body")
        let other = await #expect(throws: CurlewError.self) {
            try await session.request(#require(URL(string: "https://api.test/items?page=2&token=real"))).string()
        }
        #expect(other?.kind == .transport, "another page is not the recorded one")
        await session.shutdown()
    }

    @Test func aFileThatIsNotHARFailsClearly() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("broken.har")
        try Data(#"{"log":{"version":"1.2","entries":[{"request":{}}]}}"#.utf8).write(to: file)
        let error = #expect(throws: CurlewError.self) { try HARCassette(file: file) }
        #expect(error?.kind == .serializationFailed, "\(String(describing: error))")
    }
}
