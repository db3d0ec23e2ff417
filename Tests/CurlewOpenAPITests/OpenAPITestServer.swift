import Foundation
import HTTPTypes
import Hummingbird
import Logging
import OpenAPIHummingbird
import OpenAPIRuntime
import Synchronization

/// A Hummingbird server running the generated server stubs (`APIProtocol`) on 127.0.0.1 with a
/// port the system picks, for as long as `body` runs.
struct OpenAPITestServer {
    /// The server URL the generated client is given (with the document's `/api` prefix).
    let serverURL: URL
    /// The OAuth2 token endpoint.
    let tokenURL: URL
    let probe: ServerProbe

    static func run<T: Sendable>(_ body: @Sendable (OpenAPITestServer) async throws -> T) async throws -> T {
        let probe = ServerProbe()
        let router = Router()
        try TestAPI(probe: probe).registerHandlers(
            on: router, serverURL: URL(string: "/api")!, middlewares: [RequestHeaderCapture()])
        // An OAuth2 token endpoint beside the API: every refresh hands out the token `fresh`.
        router.post("oauth/token") { _, _ -> Response in
            let token = #"{"access_token":"fresh","token_type":"Bearer","expires_in":3600,"refresh_token":"next"}"#
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: token)))
        }
        var logger = Logger(label: "openapi-test-server")
        logger.logLevel = .critical
        let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                portSink.yield(channel.localAddress?.port ?? 0)
                portSink.finish()
            },
            logger: logger)
        let running = Task { try await app.run() }
        defer { running.cancel() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            running.cancel()
            _ = try? await running.value
            throw ProbeTimeout("the OpenAPI test server did not start")
        }
        let server = OpenAPITestServer(
            serverURL: URL(string: "http://127.0.0.1:\(port)/api")!,
            tokenURL: URL(string: "http://127.0.0.1:\(port)/oauth/token")!, probe: probe)
        do {
            let result = try await body(server)
            running.cancel()
            _ = try? await running.value
            return result
        } catch {
            running.cancel()
            _ = try? await running.value
            throw error
        }
    }
}

/// The request's header fields, for handlers whose operation does not declare them.
enum RequestHeaders {
    @TaskLocal static var current = HTTPFields()
}

/// Makes every request's header fields readable through ``RequestHeaders/current``.
struct RequestHeaderCapture: ServerMiddleware {
    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        try await RequestHeaders.$current.withValue(request.headerFields) {
            try await next(request, body, metadata)
        }
    }
}

/// What the server saw, for tests to wait on.
final class ServerProbe: Sendable {
    enum Event: Sendable, Equatable {
        /// An upload handler received this many bytes so far.
        case uploadProgress(Int64)
        /// A download body stopped being read before its end (the client went away).
        case downloadAbandoned(sent: Int64)
    }

    private struct Waiter {
        let id: Int
        let matches: @Sendable (Event) -> Bool
        let continuation: CheckedContinuation<Event?, Never>
    }

    private struct State {
        var events: [Event] = []
        var waiters: [Waiter] = []
        var nextID = 0
    }

    private let state = Mutex(State())

    func record(_ event: Event) {
        let ready = state.withLock { state -> [Waiter] in
            state.events.append(event)
            let ready = state.waiters.filter { $0.matches(event) }
            state.waiters.removeAll { $0.matches(event) }
            return ready
        }
        for waiter in ready { waiter.continuation.resume(returning: event) }
    }

    /// Waits for an event (recorded before or after the call) that `matches`; fails after
    /// `seconds`, so that a missing event is a failure rather than a hang.
    func wait(
        for description: String, seconds: Double = 30, _ matches: @escaping @Sendable (Event) -> Bool
    ) async throws -> Event {
        try await withThrowingTaskGroup(of: Event?.self) { group in
            group.addTask { await self.next(matching: matches) }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let event = first else {
                throw ProbeTimeout("timed out waiting for \(description)")
            }
            return event
        }
    }

    private func next(matching matches: @escaping @Sendable (Event) -> Bool) async -> Event? {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Event?, Never>) in
                let found = state.withLock { state -> Event?? in
                    if let event = state.events.first(where: matches) { return .some(event) }
                    if Task.isCancelled { return .some(nil) }
                    state.waiters.append(Waiter(id: id, matches: matches, continuation: continuation))
                    return .none
                }
                if case .some(let event) = found { continuation.resume(returning: event) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(returning: nil)
        }
    }
}

struct ProbeTimeout: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
