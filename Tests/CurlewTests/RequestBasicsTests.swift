import Curlew
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import Testing
import TestServer

@Suite("Requests over HTTP/1.1")
struct RequestBasicsTests {
    let session = Fixtures.session

    @Test func getEchoesMethodURLAndDefaultHeaders() async throws {
        let server = try await Fixtures.server()
        let echo = try Fixtures.echo(try await session.request(server.url("/anything?x=1&y=two")).validate().data())
        #expect(echo.method == "GET")
        #expect(echo.args["x"] == .one("1"))
        #expect(echo.args["y"] == .one("two"))
        #expect(echo.headers["user-agent"] == SessionConfiguration.defaultUserAgent)
        #expect(echo.headers["user-agent"]?.hasPrefix("Curlew/\(CurlewVersion.current) (") == true)
        let encodings = Set((echo.headers["accept-encoding"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        #expect(encodings.isSuperset(of: ["gzip", "deflate", "br", "zstd"]))
    }

    @Test(arguments: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "PURGE", "PROPFIND"])
    func everyMethodIsSentAsIs(_ name: String) async throws {
        let server = try await Fixtures.server()
        let method = try #require(HTTPRequest.Method(name))
        let response = try await session.request(server.url("/anything"), method: method).response
        let echo = try Fixtures.echo(response.value)
        #expect(echo.method == name)
        #expect(response.status == .ok)
    }

    @Test func headMethodHasNoBody() async throws {
        let server = try await Fixtures.server()
        let response = try await session.request(server.url("/bytes/100"), method: .head).response
        #expect(response.status == .ok)
        #expect(response.value.isEmpty)
        #expect(response.head.headerFields[.contentLength] == "100")
    }

    @Test func bodiesFromDataStringFileAndStream() async throws {
        let server = try await Fixtures.server()
        let data = try Fixtures.echo(try await session.request(server.url("/anything"), method: .put, body: .data(Data("hello".utf8))).data())
        #expect(data.body == "hello")
        #expect(data.method == "PUT")
        #expect(data.headers["content-type"] == nil)
        #expect(data.headers["expect"] == nil)

        let text = try Fixtures.echo(try await session.request(server.url("/anything"), method: .post, body: .string("naïve ☃")).data())
        #expect(text.body == "naïve ☃")

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-body-\(UUID()).txt")
        try Data("from a file".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let fromFile = try Fixtures.echo(try await session.request(server.url("/anything"), method: .post, body: .file(file)).data())
        #expect(fromFile.body == "from a file")
        #expect(fromFile.headers["content-length"] == "11")

        let chunks = ChunkSequence(chunks: [Array("ab".utf8), Array("cd".utf8), Array("e".utf8)])
        let streamed = try Fixtures.echo(try await session.request(server.url("/anything"), method: .post, body: .stream(chunks)).data())
        #expect(streamed.body == "abcde")
        #expect(streamed.headers["transfer-encoding"] == "chunked")
    }

    @Test func largeStreamedUploadArrivesIntact() async throws {
        let server = try await Fixtures.server()
        let chunk = [UInt8](repeating: 0x61, count: 64 << 10)
        let count = 64
        let body = RequestBody.stream(length: Int64(chunk.count * count)) {
            ChunkSequence(chunks: Array(repeating: chunk, count: count))
        }
        struct Upload: Decodable { let bytes: Int; let chunked: Bool }
        let upload = try await session.request(server.url("/upload"), method: .post, body: body).validate().decode(Upload.self)
        #expect(upload.bytes == chunk.count * count)
        #expect(upload.chunked == false)
    }

    @Test func headersAreSentAndContentTypeKept() async throws {
        let server = try await Fixtures.server()
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        fields[HTTPField.Name("X-Custom")!] = "value 1"
        fields[.userAgent] = "MyApp/2"
        let echo = try Fixtures.echo(try await session.request(server.url("/anything"), method: .post, headers: RequestHeaders(fields), body: .string("{}")).data())
        #expect(echo.headers["content-type"] == "application/json")
        #expect(echo.headers["x-custom"] == "value 1")
        #expect(echo.headers["user-agent"] == "MyApp/2")
    }

    @Test func sessionHeadersGoOutAloneOrUnderTheRequestsOwn() async throws {
        let server = try await Fixtures.server()
        var configuration = SessionConfiguration()
        configuration.userAgent = "Shared/1"
        configuration.defaultHeaders[HTTPField.Name("X-Team")!] = "curlew"
        configuration.maximumConnectionsPerHost = 1
        let session = Session(configuration: configuration)
        var own = HTTPFields()
        own[HTTPField.Name("X-Once")!] = "yes"
        own[HTTPField.Name("X-Team")!] = "override"
        // One connection and one handle at a time, so each request reuses the last one's handle.
        let plain = try Fixtures.echo(try await session.request(server.url("/anything")).data())
        let custom = try Fixtures.echo(try await session.request(server.url("/anything"), headers: RequestHeaders(own)).data())
        let plainAgain = try Fixtures.echo(try await session.request(server.url("/anything")).data())
        await session.shutdown()
        for echo in [plain, plainAgain] {
            #expect(echo.headers["user-agent"] == "Shared/1")
            #expect(echo.headers["x-team"] == "curlew")
            #expect(echo.headers["x-once"] == nil)
        }
        #expect(custom.headers["user-agent"] == "Shared/1")
        #expect(custom.headers["x-team"] == "override")
        #expect(custom.headers["x-once"] == "yes")
    }

    @Test func stringUsesCharsetThenUTF8ThenLatin1() async throws {
        let server = try await Fixtures.server()
        #expect(try await session.request(server.url("/charset/latin1")).string() == "café")
        let utf8 = try await session.request(server.url("/content-type?type=text/plain&body=caf%C3%A9")).string()
        #expect(utf8 == "café")
    }

    @Test func decodeAndSerializersShareOneTransfer() async throws {
        let server = try await Fixtures.server()
        let path = "/anything/shared-\(UUID().uuidString)"
        let request = session.request(server.url(path))
        async let first = request.data()
        async let second = request.string()
        struct Partial: Decodable, Sendable { let method: String }
        async let third = request.decode(Partial.self)
        let (data, text, decoded) = try await (first, second, third)
        #expect(String(decoding: data, as: UTF8.self) == text)
        #expect(decoded.method == "GET")
        #expect(server.requestCount(path: path) == 1)
    }

    @Test func requestIsLazy() async throws {
        // Laziness is an absence, which no finite wait proves; instead of a fixed sleep, this
        // looks where an eager start would show. Its event monitor must have seen nothing but
        // `requestCreated` (a started pipeline reports `adapted` and `started`), both at once and
        // after a complete round trip of a later request through the same session to the same
        // server. An eager start, made in the initializer or in a task spawned there, would have
        // been under way before that later request was even created, so its hooks or its
        // arrival at the server would show in the checks below. What they cannot exclude is a
        // start deliberately delayed past that round trip.
        let server = try await Fixtures.server()
        let monitor = RecordingMonitor()
        var configuration = SessionConfiguration()
        configuration.eventMonitors = [monitor]
        let own = Session(configuration: configuration)
        defer { Task { await own.shutdown() } }
        let path = "/anything/lazy-\(UUID().uuidString)"
        let request = own.request(server.url(path))
        #expect(monitor.lines.all == ["created \(path)"])

        _ = try await own.request(server.url(path + "/later")).data()
        #expect(server.requestCount(path: path + "/later") == 1)
        #expect(server.requestCount(path: path) == 0)
        #expect(
            monitor.lines.all == [
                "created \(path)", "created \(path)/later", "adapted 1", "started 1", "head 200", "metrics 1 true",
                "finished 200 after 1", "serialized Data true",
            ], "only the later request ran")

        _ = try await request.data()
        #expect(server.requestCount(path: path) == 1, "reading the response starts the request")
    }

    @Test func metricsAndConnectionReuse() async throws {
        let server = try await Fixtures.server()
        let own = Session()
        let first = try await own.request(server.url("/bytes/1000")).response
        let second = try await own.request(server.url("/bytes/1000")).response
        #expect(first.metrics.httpVersion == .http1_1)
        #expect(first.metrics.remoteAddress == "127.0.0.1")
        #expect(first.metrics.remotePort == server.port)
        #expect(first.metrics.bytesReceived == 1000)
        #expect(first.metrics.total > .zero)
        #expect(first.metrics.dnsLookup <= first.metrics.connect)
        #expect(first.metrics.connect <= first.metrics.timeToFirstByte)
        #expect(first.metrics.timeToFirstByte <= first.metrics.total)
        #expect(first.metrics.bytesSent == 0)
        #expect(first.metrics.connectionReused == false)
        #expect(second.metrics.connectionReused == true)
        #expect(first.value == Data(TestServer.expectedBytes(count: 1000)))
        let upload = try await own.request(server.url("/anything"), method: .put, body: .data(Data(count: 300))).response
        #expect(upload.metrics.bytesSent == 300)
        await own.shutdown()
    }

    @Test func validateAcceptsAndRejects() async throws {
        let server = try await Fixtures.server()
        await #expect(throws: CurlewError.self) { try await session.request(server.url("/status/404")).validate().data() }
        do {
            _ = try await session.request(server.url("/status/500")).validate().data()
            Issue.record("expected a validation error")
        } catch {
            #expect(error.kind == .unacceptableStatus)
            #expect(error.status?.code == 500)
            #expect(error.url?.path == "/status/500")
        }
        let ok = try await session.request(server.url("/status/201")).validate(statusCode: [201]).response
        #expect(ok.status.code == 201)
        do {
            _ = try await session.request(server.url("/xml"), headers: ["Accept": "application/json"]).validate().data()
            Issue.record("expected a content type error")
        } catch {
            #expect(error.kind == .unacceptableContentType)
        }
        _ = try await session.request(server.url("/get"), headers: ["Accept": "application/*"]).validate().data()
    }

    @Test func gzipDeflateAndBrotliAreDecoded() async throws {
        let server = try await Fixtures.server()
        for path in ["/gzip", "/deflate", "/brotli"] {
            let response = try await session.request(server.url(path)).validate().response
            let echo = try Fixtures.echo(response.value)
            #expect(echo.path == path)
            #expect(response.head.headerFields[.contentEncoding] != nil)
        }
    }

    @Test func urlRequestConvertsIn() async throws {
        let server = try await Fixtures.server()
        var urlRequest = URLRequest(url: server.url("/anything"))
        urlRequest.httpMethod = "PATCH"
        urlRequest.setValue("yes", forHTTPHeaderField: "X-From-URLRequest")
        urlRequest.httpBody = Data("payload".utf8)
        let echo = try Fixtures.echo(try await session.request(urlRequest).data())
        #expect(echo.method == "PATCH")
        #expect(echo.headers["x-from-urlrequest"] == "yes")
        #expect(echo.body == "payload")
    }

    /// Counts the process's threads: runs in the serial phase ("Threads" in its name).
    @Test func thousandConcurrentRequestsOnOneSessionAddNoThreads() async throws {
        let server = try await Fixtures.server()
        let own = Session()
        let threadsBefore = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<1000 {
                group.addTask { try await own.request(server.url("/bytes/64?seed=\(index)")).response.status.code }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        let threadsAfter = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count
        #expect(statuses.count == 1000)
        #expect(statuses.allSatisfy { $0 == 200 })
        #expect(threadsAfter - threadsBefore < 20)
        await own.shutdown()
    }
}
