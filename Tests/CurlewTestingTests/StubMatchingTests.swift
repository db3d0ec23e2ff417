import Curlew
import CurlewTesting
import Foundation
import HTTPTypes
import Testing

/// How stubs pick the stub that answers, and what they record.
@Suite("Stub matching")
struct StubMatchingTests {
    @Test func methodAndExactURLMatch() async throws {
        let stubs = HTTPStubs()
        let items = stubs.register(.get, "https://api.example.com/items", .text("items"))
        stubs.register(.post, "https://api.example.com/items", .text("created", status: 201))
        let session = Session(configuration: .stubbed(by: stubs))
        #expect(try await session.request("https://api.example.com/items").string() == "items")
        #expect(try await session.request("https://api.example.com/items", method: .post).string() == "created")
        // Exact: another query is another URL.
        let other = await failure(session.request("https://api.example.com/items?page=2"))
        #expect(other?.kind == .transport)
        #expect(stubs.matchCount(of: items) == 1)
        await session.shutdown()
    }

    @Test func prefixPatternPathQueryHeaderAndBodyRules() async throws {
        let stubs = HTTPStubs()
        stubs.register(.urlPrefix("https://api.example.com/v1/"), responses: [.text("prefix")])
        stubs.register(try .urlMatching(#"/users/\d+$"#), responses: [.text("pattern")])
        stubs.register(.path("/q") && .query("page", "2"), responses: [.text("query")])
        stubs.register(.path("/h") && .header("X-Key", "abc"), responses: [.text("header")])
        stubs.register(.method(.post) && .path("/b") && .bodyContains("needle"), responses: [.text("body")])
        let session = Session(configuration: .stubbed(by: stubs))
        #expect(try await session.request("https://api.example.com/v1/anything").string() == "prefix")
        #expect(try await session.request("https://api.example.com/users/42").string() == "pattern")
        #expect(await failure(session.request("https://api.example.com/users/42x")) != nil)
        #expect(try await session.request("https://h.example/q?page=2").string() == "query")
        #expect(await failure(session.request("https://h.example/q?page=3")) != nil)
        #expect(try await session.request("https://h.example/h", headers: ["X-Key": "abc"]).string() == "header")
        #expect(await failure(session.request("https://h.example/h", headers: ["X-Key": "abd"])) != nil)
        let post = session.request("https://h.example/b", method: .post, body: .data(Data("a needle here".utf8)))
        #expect(try await post.string() == "body")
        #expect(await failure(session.request("https://h.example/b", method: .post, body: .data(Data("hay".utf8)))) != nil)
        #expect(throws: (any Error).self) { try RequestMatcher.urlMatching("([") }
        await session.shutdown()
    }

    @Test func theLastRegisteredMatchingStubAnswersAndTimesLimitsAStub() async throws {
        let stubs = HTTPStubs()
        stubs.register(.urlPrefix("https://api.example.com/"), responses: [.text("general")])
        stubs.register(.url("https://api.example.com/special"), times: 1, responses: [.text("special")])
        let session = Session(configuration: .stubbed(by: stubs))
        #expect(try await session.request("https://api.example.com/special").string() == "special")
        #expect(try await session.request("https://api.example.com/special").string() == "general")
        await session.shutdown()
    }

    @Test func responsesAreTakenInTurnAndTheLastRepeats() async throws {
        let stubs = HTTPStubs()
        stubs.register(.get, "https://api.example.com/n", .text("1"), .text("2"))
        let session = Session(configuration: .stubbed(by: stubs))
        var seen: [String] = []
        for _ in 0..<3 { seen.append(try await session.request("https://api.example.com/n").string()) }
        #expect(seen == ["1", "2", "2"])
        await session.shutdown()
    }

    @Test func anUnmatchedRequestFailsListingTheStubsAndIsRecorded() async throws {
        let stubs = HTTPStubs()
        let registered = stubs.register(.get, "https://api.example.com/items", .text("x"))
        let session = Session(configuration: .stubbed(by: stubs))
        let error = await failure(session.request("https://user:pw@api.example.com/other?token=s3cret"))
        #expect(error?.kind == .transport)
        let message = error?.message ?? ""
        #expect(message.contains("no stub matches GET https://api.example.com/other?…"), "\(message)")
        #expect(message.contains("#1 GET https://api.example.com/items"), "\(message)")
        #expect(!message.contains("s3cret") && !message.contains("pw@"), "\(message)")
        #expect(stubs.unmatchedRequests.count == 1)
        #expect(stubs.unusedStubs == [registered])
        #expect(throws: StubVerificationError.self) { try stubs.verifyAllMatched() }
        _ = try await session.request("https://api.example.com/items").data()
        #expect(stubs.unusedStubs.isEmpty)
        await session.shutdown()
    }

    @Test func verifyAllMatchedPassesWhenEveryStubAnsweredAndEveryRequestMatched() async throws {
        let stubs = HTTPStubs()
        stubs.register(.get, "https://api.example.com/a", .text("a"))
        let session = Session(configuration: .stubbed(by: stubs))
        _ = try await session.request("https://api.example.com/a").data()
        try stubs.verifyAllMatched()
        await session.shutdown()
    }

    @Test func requestsAreRecordedAsTheyLeftTheAdapters() async throws {
        let stubs = HTTPStubs()
        let upload = stubs.register(.method(.post) && .path("/upload"), responses: [.status(204)])
        var configuration = SessionConfiguration.stubbed(by: stubs)
        configuration.userAgent = "StubTest/1"
        configuration.acceptLanguage = nil
        let session = Session(configuration: configuration, interceptors: [HeaderAdder()])
        let stream = AsyncStream<[UInt8]> { continuation in
            continuation.yield(Array("part one, ".utf8))
            continuation.yield(Array("part two".utf8))
            continuation.finish()
        }
        _ = try await session.request(
            "https://api.example.com/upload", method: .post, headers: ["Content-Type": "text/plain"],
            body: .stream(stream)
        ).data()
        let recorded = try #require(stubs.requests(answeredBy: upload).first)
        #expect(recorded.method == "POST")
        #expect(recorded.bodyText == "part one, part two")
        #expect(recorded.headerLines.first == "Host: api.example.com")
        #expect(recorded.header("X-Adapted") == "yes")
        #expect(recorded.header("User-Agent") == "StubTest/1")
        #expect(recorded.header("Transfer-Encoding") == "chunked")
        #expect(recorded.header("Expect") == nil, "an empty Expect line only stops libcurl's own")
        let names = recorded.headerLines.compactMap { $0.split(separator: ":").first.map(String.init) }
        #expect(names.firstIndex(of: "Host") == 0)
        let typeIndex = try #require(names.firstIndex(of: "Content-Type"))
        let framingIndex = try #require(names.firstIndex(of: "Transfer-Encoding"))
        let adaptedIndex = try #require(names.firstIndex(of: "X-Adapted"))
        #expect(typeIndex < adaptedIndex, "the request's fields in their order, the adapter's after")
        #expect(adaptedIndex < framingIndex)
        await session.shutdown()
    }

    @Test func fileAndMultipartBodiesAreReadFromTheirSources() async throws {
        let stubs = HTTPStubs()
        stubs.register(.method(.post), responses: [.status(200)])
        let session = Session(configuration: .stubbed(by: stubs))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("stub-\(UUID().uuidString).txt")
        try Data("file body".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        _ = try await session.request("https://api.example.com/file", method: .post, body: .file(file)).data()
        var form = MultipartFormData()
        try form.append("value-1", withName: "field")
        _ = try await session.request("https://api.example.com/form", method: .post, body: .multipart(form)).data()
        let requests = stubs.receivedRequests
        #expect(requests.count == 2)
        #expect(requests[0].bodyText == "file body")
        #expect(requests[0].header("Content-Length") == "9")
        #expect(requests[1].bodyText?.contains("value-1") == true)
        #expect(requests[1].header("Content-Type")?.hasPrefix("multipart/form-data; boundary=") == true)
        await session.shutdown()
    }

    @Test func parallelSessionsHaveSeparateStubs() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask {
                    let stubs = HTTPStubs()
                    stubs.register(.get, "https://api.example.com/who", .text("session \(index)"))
                    let session = Session(configuration: .stubbed(by: stubs))
                    for _ in 0..<5 {
                        let answer = try await session.request("https://api.example.com/who").string()
                        #expect(answer == "session \(index)")
                    }
                    #expect(stubs.receivedRequests.count == 5)
                    await session.shutdown()
                }
            }
            try await group.waitForAll()
        }
    }
}

/// An adapter that marks each request.
struct HeaderAdder: RequestInterceptor {
    func adapt(_ request: OutgoingRequest, for session: Session) async throws -> OutgoingRequest {
        var request = request
        if let name = HTTPField.Name("X-Adapted") { request.headerFields[name] = "yes" }
        return request
    }
}

/// The error `request` fails with, or nil when it succeeds.
func failure(_ request: DataRequest) async -> CurlewError? {
    do {
        _ = try await request.data()
        return nil
    } catch {
        return error
    }
}
