import Curlew
@testable import CurlewOpenAPI
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing
import TestServer

/// A generated client (Generated/Client.swift) over `CurlewTransport`, against the generated
/// server stubs on Hummingbird.
@Suite struct CurlewTransportTests {
    /// Runs `body` with a server and a client whose session has `interceptors`.
    private func withClient<T: Sendable>(
        interceptors: [any RequestInterceptor] = [], configuration: SessionConfiguration = .default,
        _ body: @Sendable (Client, OpenAPITestServer) async throws -> T
    ) async throws -> T {
        try await OpenAPITestServer.run { server in
            let session = Session(configuration: configuration, interceptors: interceptors)
            let client = Client(serverURL: server.serverURL, transport: CurlewTransport(session: session))
            do {
                let result = try await body(client, server)
                await session.shutdown()
                return result
            } catch {
                await session.shutdown()
                throw error
            }
        }
    }

    @Test func jsonBodiesRoundTrip() async throws {
        try await withClient { client, _ in
            let output = try await client.createGreeting(body: .json(.init(name: "Ann")))
            let greeting = try output.created.body.json
            #expect(greeting.message == "Hello, Ann!")
            #expect(greeting.tag == nil)
        }
    }

    @Test func pathAndQueryReachTheServer() async throws {
        try await withClient { client, _ in
            let item = try await client.getItem(path: .init(id: "1"), query: .init(detail: "a b&c")).ok.body.json
            #expect(item == .init(id: "1", name: "One", detail: "a b&c"))
        }
    }

    @Test func errorStatusMapsToTheGeneratedOutput() async throws {
        try await withClient { client, _ in
            let output = try await client.getItem(path: .init(id: "42"))
            guard case .notFound(let notFound) = output else {
                Issue.record("expected .notFound, got \(output)")
                return
            }
            #expect(try notFound.body.json.message == "no item 42")
        }
    }

    @Test func sessionAdaptersApplyToGeneratedRequests() async throws {
        let tagging = Interceptor.adapter { request, _ in
            var request = request
            request.headerFields[HTTPField.Name("X-Test-Tag")!] = "from-the-session"
            return request
        }
        try await withClient(interceptors: [tagging]) { client, _ in
            let greeting = try await client.createGreeting(body: .json(.init(name: "Bo"))).created.body.json
            #expect(greeting.tag == "from-the-session")
        }
    }

    /// The 401 is shown to the OAuth2 authenticator, which refreshes and retries; the generated
    /// client sees only the final 200.
    @Test func oauth2RefreshesOnA401AndRetries() async throws {
        try await OpenAPITestServer.run { server in
            let auth = OAuth2Authenticator(
                credential: OAuth2Credential(accessToken: "stale", refreshToken: "r1", expiresIn: .seconds(3600)),
                tokenURL: server.tokenURL, clientID: "tests", scope: .hosts(["127.0.0.1"]))
            let session = Session(interceptors: [auth])
            let client = Client(serverURL: server.serverURL, transport: CurlewTransport(session: session))
            let output = try await client.getMe()
            await session.shutdown()
            #expect(try output.ok.body.json.authorization == "Bearer fresh")
        }
    }

    /// A 503 is retried by `RetryPolicy`; with no retrier, the 404 above arrives untouched. Here
    /// a retrier that retries a 404 once proves statuses reach the retriers at all.
    @Test func retriersSeeErrorStatusesAndRetry() async throws {
        let attempts = Attempts()
        let retryOnce = Interceptor.retrier { _, _, error, context in
            await attempts.record(error.status?.code)
            return context.attempt == 1 && error.status?.code == 404 ? .retry : .doNotRetry
        }
        try await withClient(interceptors: [retryOnce]) { client, _ in
            let output = try await client.getItem(path: .init(id: "404"))
            guard case .notFound = output else {
                Issue.record("expected .notFound after the retry, got \(output)")
                return
            }
        }
        #expect(await attempts.statuses == [404, 404])
    }

    @Test func transportErrorsKeepTheCurlewError() async throws {
        // A port nothing listens on: the server is started and stopped first.
        let deadURL = try await OpenAPITestServer.run { server in server.serverURL }
        let session = Session()
        let client = Client(serverURL: deadURL, transport: CurlewTransport(session: session))
        do {
            _ = try await client.getItem(path: .init(id: "1"))
            Issue.record("expected the request to fail")
        } catch let error as ClientError {
            let underlying = try #require(error.underlyingError as? CurlewError)
            #expect(underlying.kind == .connectionRefused)
        }
        await session.shutdown()
    }

    /// The upload is produced chunk by chunk: the second chunk is made only after the server
    /// received the first, which a transport that collected the body first would never allow.
    @Test func streamedUploadOfUnknownLengthIsSentChunkedAsProduced() async throws {
        try await withClient { client, server in
            let (chunks, producer) = AsyncThrowingStream.makeStream(of: ArraySlice<UInt8>.self)
            let body = HTTPBody(chunks, length: .unknown, iterationBehavior: .single)
            let first = ArraySlice([UInt8](repeating: 7, count: 10_000))
            let second = ArraySlice([UInt8](repeating: 9, count: 5_000))
            async let receipt = client.upload(body: .binary(body))
            producer.yield(first)
            _ = try await server.probe.wait(for: "the first chunk at the server") {
                if case .uploadProgress(let count) = $0 { return count >= 10_000 }
                return false
            }
            producer.yield(second)
            producer.finish()
            let json = try await receipt.ok.body.json
            #expect(json.byteCount == 15_000)
            #expect(json.checksum == 10_000 * 7 + 5_000 * 9)
            #expect(json.chunked)
        }
    }

    @Test func uploadOfKnownLengthSendsContentLength() async throws {
        try await withClient { client, _ in
            let bytes = [UInt8](repeating: 1, count: 70_000)
            let json = try await client.upload(body: .binary(HTTPBody(bytes))).ok.body.json
            #expect(json.byteCount == 70_000)
            #expect(json.checksum == 70_000)
            #expect(!json.chunked)
        }
    }

    @Test func streamedDownloadArrivesWhole() async throws {
        try await withClient { client, _ in
            let size: Int64 = 3 * 1024 * 1024 + 17
            let body = try await client.download(query: .init(size: size)).ok.body.binary
            #expect(body.length == .known(size))
            var offset: Int64 = 0
            for try await chunk in body {
                for byte in chunk {
                    guard byte == PatternBytes.byte(at: offset) else {
                        Issue.record("byte \(offset) is \(byte)")
                        return
                    }
                    offset += 1
                }
            }
            #expect(offset == size)
        }
    }

    /// Cancelling the task that reads a slow download ends the transfer, and the server sees its
    /// body abandoned long before its end.
    @Test func cancellingTheCallingTaskCancelsTheTransfer() async throws {
        try await withClient { client, server in
            let size: Int64 = 64 * 1024 * 1024
            let (started, signal) = AsyncStream.makeStream(of: Void.self)
            let reading = Task {
                let body = try await client.download(query: .init(size: size, delayMilliseconds: 20)).ok.body.binary
                var received = 0
                for try await chunk in body {
                    received += chunk.count
                    signal.yield()
                }
                return received
            }
            var iterator = started.makeAsyncIterator()
            await iterator.next()
            reading.cancel()
            let result = await reading.result
            #expect(throws: (any Error).self) { try result.get() }
            let event = try await server.probe.wait(for: "the server to see the download abandoned") {
                if case .downloadAbandoned = $0 { return true }
                return false
            }
            guard case .downloadAbandoned(let sent) = event else { return }
            #expect(sent < size / 2)
        }
    }

    /// Cancelling while the generated client waits for the head (here during a retrier's
    /// 600 s delay after a 404) ends the call at once, with Curlew's cancellation underneath.
    @Test func cancellingWhileWaitingForTheHeadCancelsTheRequest() async throws {
        let (asked, signal) = AsyncStream.makeStream(of: Void.self)
        let slowRetry = Interceptor.retrier { _, _, _, _ in
            signal.yield()
            return .retryWithDelay(.seconds(600))
        }
        try await withClient(interceptors: [slowRetry]) { client, _ in
            let calling = Task { try await client.getItem(path: .init(id: "missing")) }
            var iterator = asked.makeAsyncIterator()
            await iterator.next()
            calling.cancel()
            // A 600 s delay: a cancel that did not end the wait is a hang, which the guard reports.
            guard let result = await HangGuard.result(of: calling) else {
                Issue.record("hung: cancelling the call did not end the retry delay")
                return
            }
            guard case .failure(let error as ClientError) = result else {
                Issue.record("expected a ClientError, got \(result)")
                return
            }
            let curlew = try #require(error.underlyingError as? CurlewError)
            #expect(curlew.kind == .taskCancelled)
        }
    }
}

/// Collects what a retrier saw.
actor Attempts {
    var statuses: [Int?] = []
    func record(_ status: Int?) { statuses.append(status) }
}
