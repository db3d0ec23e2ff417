@testable import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

#if canImport(Glibc)
import Glibc
#endif

/// HAR export against the test server: an entry per attempt and per redirect hop, timings from
/// libcurl's, failures as status 0 with `_error`, secrets redacted as `cURLDescription()`
/// redacts them, bodies only when asked, and a file an independent reader accepts.
@Suite("HAR recorder")
struct HARRecorderTests {
    static func session(_ recorder: HARRecorder) -> Session {
        var configuration = SessionConfiguration()
        configuration.eventMonitors = [recorder]
        return Session(configuration: configuration)
    }

    static func temporaryFile(_ name: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-har-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        return directory.appendingPathComponent(name)
    }

    @Test func aRequestIsOneEntryWhoseTimingsAddUp() async throws {
        let server = try await Fixtures.server()
        let recorder = HARRecorder()
        let session = Self.session(recorder)
        defer { Task { await session.shutdown() } }
        let body = try await session.request(server.url("/get?page=2"), headers: ["X-Trace": "t1"]).data()
        let entries = recorder.archive().log.entries
        let entry = try #require(entries.first)
        #expect(entries.count == 1)
        #expect(entry.request.method == "GET")
        #expect(entry.request.url == server.url("/get?page=2").absoluteString)
        #expect(entry.request.queryString == [HARQueryParameter(name: "page", value: "2")])
        #expect(entry.request.headers.contains(HARHeader(name: "X-Trace", value: "t1")))
        #expect(entry.request.httpVersion == "HTTP/1.1")
        #expect(entry.response.status == 200 && entry.response.statusText == "OK")
        #expect(entry.response.content.size == body.count)
        #expect(entry.response.content.text == nil, "bodies are off by default")
        #expect(entry.response.bodySize == body.count)
        #expect(entry.serverIPAddress == "127.0.0.1")
        #expect(entry.error == nil)
        let timings = entry.timings
        #expect(timings.dns.map { $0 >= 0 } == true && timings.connect.map { $0 >= 0 } == true, "a new connection")
        #expect(timings.ssl == -1, "no TLS over cleartext")
        #expect(timings.blocked == -1)
        #expect(abs(entry.time - timings.total) < 0.001)
        #expect(entry.time > 0)

        // The same connection again: no DNS, no connect.
        _ = try await session.request(server.url("/get")).data()
        let second = try #require(recorder.archive().log.entries.last)
        #expect(second.timings.dns == -1 && second.timings.connect == -1 && second.timings.ssl == -1)
    }

    @Test func eachRedirectHopIsAnEntry() async throws {
        let server = try await Fixtures.server()
        let recorder = HARRecorder()
        let session = Self.session(recorder)
        defer { Task { await session.shutdown() } }
        _ = try await session.request(server.url("/redirect/2")).data()
        let entries = recorder.archive().log.entries
        try #require(entries.map(\.response.status) == [302, 302, 200])
        #expect(entries.map { URL(string: $0.request.url)?.path } == ["/redirect/2", "/redirect/1", "/get"])
        #expect(entries[0].response.redirectURL == server.url("/redirect/1").absoluteString)
        #expect(entries[1].response.redirectURL == server.url("/get").absoluteString)
        #expect(entries[2].response.redirectURL == "")
        #expect(zip(entries, entries.dropFirst()).allSatisfy { $0.startedDateTime <= $1.startedDateTime })
        #expect(entries.allSatisfy { $0.time > 0 && abs($0.time - $0.timings.total) < 0.001 }, "each hop has its own timings")
    }

    @Test func requestBodiesAreRecordedOnlyWhenAskedAndRedacted() async throws {
        let server = try await Fixtures.server()
        let json = #"{"user":"ann","password":"hunter2"}"#
        for recordsBodies in [false, true] {
            let recorder = HARRecorder(options: .init(recordsRequestBodies: recordsBodies))
            let session = Self.session(recorder)
            _ = try await session.request(
                server.url("/post"), method: .post, headers: ["Content-Type": "application/json"], body: .string(json)
            ).data()
            await session.shutdown()
            let request = try #require(recorder.archive().log.entries.first).request
            #expect(request.method == "POST")
            #expect(request.bodySize == json.utf8.count)
            if recordsBodies {
                let postData = try #require(request.postData)
                #expect(postData.mimeType == "application/json")
                #expect(postData.text == #"{"user":"ann","password":"***"}"#)
                #expect(postData.encoding == nil)
            } else {
                #expect(request.postData == nil)
            }
        }
    }

    @Test func aFailureIsAnEntryWithStatusZeroAndTheError() async throws {
        let port = try RefusingPort.make()
        let recorder = HARRecorder()
        let session = Self.session(recorder)
        defer { Task { await session.shutdown() } }
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/nothing?access_token=abc"))
        let error = await failure(session.request(url))
        #expect(error?.kind == .connectionRefused)
        let entry = try #require(recorder.archive().log.entries.first)
        #expect(entry.response.status == 0 && entry.response.httpVersion == "")
        #expect(entry.error?.hasPrefix("connectionRefused") == true, "\(entry.error ?? "")")
        #expect(entry.request.url == "http://127.0.0.1:\(port)/nothing?access_token=***")
        let text = String(decoding: try recorder.archive().jsonData(), as: UTF8.self)
        #expect(text.contains(#""_error""#))
    }

    @Test func secretsAreRedactedAsCurlDescriptionRedactsThem() async throws {
        let server = try await Fixtures.server()
        let recorder = HARRecorder(options: .init(recordsRequestBodies: true))
        let session = Self.session(recorder)
        defer { Task { await session.shutdown() } }
        var url = try #require(URLComponents(url: server.url("/anything"), resolvingAgainstBaseURL: false))
        url.user = "ann"
        url.password = "pa55word"
        url.query = "access_token=T0KEN&x=1"
        _ = try await session.request(
            try #require(url.url), method: .post,
            headers: ["Authorization": "Bearer S3CRET", "X-Api-Key": "K3Y", "Cookie": "sid=C00KIE; theme=dark",
                      "Content-Type": "application/x-www-form-urlencoded"],
            body: .string("client_secret=SH4RED&grant_type=x")
        ).data()
        _ = try await session.request(server.url("/cookies/set?sid=SETC00KIE")).data()
        let text = String(decoding: try recorder.archive().jsonData(), as: UTF8.self)
        for secret in ["pa55word", "T0KEN", "S3CRET", "K3Y", "=C00KIE", "SH4RED"] {
            #expect(!text.contains(secret), "\(secret) leaked")
        }
        let entries = recorder.archive().log.entries
        // The cookie set through /cookies/set's query is in that URL, an ordinary query value;
        // in the heads and cookies it is a credential.
        let heads = entries.flatMap { $0.response.headers + $0.request.headers }.map(\.value)
            + entries.flatMap { $0.response.cookies + $0.request.cookies }.map(\.value)
        #expect(!heads.contains { $0.contains("C00KIE") }, "\(heads)")

        let first = try #require(entries.first)
        #expect(first.request.headers.contains(HARHeader(name: "Authorization", value: "Bearer ***")))
        #expect(first.request.url.contains("ann:***@") && first.request.url.contains("access_token=***&x=1"))
        #expect(first.request.queryString.contains(HARQueryParameter(name: "access_token", value: "***")))
        #expect(first.request.cookies.map(\.name) == ["sid", "theme"])
        #expect(first.request.postData?.text == "client_secret=***&grant_type=x")
        let setCookie = try #require(entries.first { $0.response.status == 302 })
        #expect(setCookie.response.headers.contains(HARHeader(name: "Set-Cookie", value: "sid=***; Path=/")))
        #expect(setCookie.response.cookies.first.map { ($0.name, $0.value, $0.path) } ?? ("", "", nil) == ("sid", "***", "/"))
    }

    @Test func responseBodiesAreOffByDefaultCappedAndBase64WhenBinary() async throws {
        let server = try await Fixtures.server()
        let recorder = HARRecorder(options: .init(recordsResponseBodies: true, maximumBodySize: 100))
        let session = Self.session(recorder)
        defer { Task { await session.shutdown() } }
        _ = try await session.request(server.url("/bytes/1000")).data()
        let small = try await session.request(server.url("/content-type?type=text/plain&body=hello")).data()
        let entries = recorder.archive().log.entries
        try #require(entries.count == 2)
        let binary = entries[0].response.content
        #expect(binary.encoding == "base64")
        #expect(binary.size == 1000)
        #expect(binary.text.flatMap { Data(base64Encoded: $0) } == Data(TestServer.expectedBytes(count: 100)))
        #expect(binary.comment?.contains("cut to 100 of its 1000 bytes") == true)
        let text = entries[1].response.content
        #expect(text.text == String(decoding: small, as: UTF8.self) && text.encoding == nil && text.comment == nil)
    }

    /// The file as written (0600, atomically) is read back by Curlew and accepted by an
    /// independent reader: the HAR 1.2 JSON schema (jsonschema) and haralyzer, in Python.
    @Test func theExportedFileIsValidHAR() async throws {
        let server = try await Fixtures.server()
        let recorder = HARRecorder(options: .init(recordsRequestBodies: true, recordsResponseBodies: true, maximumBodySize: 64))
        let session = Self.session(recorder)
        defer { Task { await session.shutdown() } }
        _ = try await session.request(server.url("/redirect/1?access_token=x")).data()
        _ = try await session.request(server.url("/post"), method: .post, body: .data(Data([0, 1, 2, 255]))).data()
        _ = try await session.request(server.url("/bytes/300")).data()
        _ = try await session.request(server.url("/cookies/set?a=b")).data()
        _ = await failure(session.request(URL(string: "http://127.0.0.1:\(try RefusingPort.make())/")!))
        let file = try Self.temporaryFile("session.har")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try recorder.write(to: file)
        var info = stat()
        #expect(stat(file.path, &info) == 0 && info.st_mode & 0o777 == 0o600)

        let readBack = try HARArchive(contentsOf: file)
        #expect(readBack.log.entries.map(\.request.url) == recorder.archive().log.entries.map(\.request.url))
        #expect(readBack.log.entries.last?.error != nil)

        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Resources/HAR/validate-har.py").path
        let result = try await ChildProcess.run("/usr/bin/env", ["python3", script, file.path])
        let errors = String(decoding: result.errorOutput, as: UTF8.self)
        #expect(result.status == 0, "the HAR file was rejected: \(errors)")
        #expect(result.text.contains("ok: 7 entries"), "\(result.text)")
    }
}
