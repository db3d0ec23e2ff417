@_spi(Stubbing) import Curlew
import Foundation
import HTTPTypes
import Synchronization

/// Stubbed answers for one session's requests, and a record of every request it received.
///
/// A session made with `SessionConfiguration.stubbed` sends nothing: each
/// request, after its adapters, goes to these stubs, and the stub's answer comes back through
/// the same steps as a server's — redirects, cookies, the cache, retries, validation and
/// decoding all run in Curlew as over the network. Only libcurl's transfer is replaced.
///
/// ```swift
/// let stubs = HTTPStubs()
/// stubs.register(.get, "https://api.example.com/items", .json(#"[{"id":1}]"#))
/// let session = Session(configuration: .stubbed(by: stubs))
/// let items = try await session.request("https://api.example.com/items").decode([Item].self)
/// #expect(stubs.receivedRequests.count == 1)
/// ```
///
/// When several stubs match a request, the one registered last answers (so a test can
/// override a fixture's general stub). A request no stub matches fails with a
/// `CurlewError` of kind `CurlewError.Kind.transport` whose message lists the
/// registered stubs; it is recorded in ``unmatchedRequests``.
///
/// Stubs hold no global state: each instance belongs to the sessions configured with it, so
/// tests that run in parallel each use their own. It is safe to use from any task.
public final class HTTPStubs: Sendable {
    private struct Stub {
        let registration: StubRegistration
        let matcher: RequestMatcher
        let responder: Responder
        let limit: Int?
        var matches = 0
        var bodyBytesSent = 0
    }

    enum Responder: Sendable {
        case sequence([StubResponse])
        case closure(@Sendable (RecordedRequest) async -> StubResponse)
    }

    private struct State {
        var stubs: [Stub] = []
        var received: [RecordedRequest] = []
    }

    private let state = Mutex(State())

    /// Empty stubs: every request fails until you register one.
    public init() {}

    // MARK: Registering

    /// Answers `method` requests to exactly `url` with `responses`, in turn: the first match gets
    /// the first response, and so on; the last one answers every later match.
    @discardableResult
    public func register(_ method: HTTPRequest.Method, _ url: String, _ responses: StubResponse...) -> StubRegistration {
        register(.method(method) && .url(url), responses: responses)
    }

    /// Answers requests that meet `matcher` with `responses` in turn (the last repeats), at most
    /// `times` times when given; past that the stub no longer matches.
    @discardableResult
    public func register(_ matcher: RequestMatcher, times: Int? = nil, responses: [StubResponse]) -> StubRegistration {
        add(matcher, times: times, .sequence(responses.isEmpty ? [.status(200)] : responses))
    }

    /// Answers requests that meet `matcher` with whatever `respond` makes of each: a response
    /// computed from the request, or one replayed from a recording. At most `times` times when given.
    @discardableResult
    public func register(
        _ matcher: RequestMatcher, times: Int? = nil, respond: @escaping @Sendable (RecordedRequest) async -> StubResponse
    ) -> StubRegistration {
        add(matcher, times: times, .closure(respond))
    }

    private func add(_ matcher: RequestMatcher, times: Int?, _ responder: Responder) -> StubRegistration {
        state.withLock { state in
            let registration = StubRegistration(number: state.stubs.count + 1, rule: matcher.description)
            state.stubs.append(Stub(registration: registration, matcher: matcher, responder: responder, limit: times))
            return registration
        }
    }

    // MARK: Assertions

    /// Every request received so far, in order, matched or not.
    public var receivedRequests: [RecordedRequest] { state.withLock { $0.received } }

    /// The requests no stub matched, in order.
    public var unmatchedRequests: [RecordedRequest] { state.withLock { $0.received.filter { $0.stub == nil } } }

    /// The requests `registration` answered, in order.
    public func requests(answeredBy registration: StubRegistration) -> [RecordedRequest] {
        state.withLock { $0.received.filter { $0.stub == registration } }
    }

    /// How many requests `registration` answered.
    public func matchCount(of registration: StubRegistration) -> Int {
        state.withLock { $0.stubs.first { $0.registration == registration }?.matches ?? 0 }
    }

    /// How many body bytes `registration` has handed to its transfers so far. A transfer takes
    /// the next piece of a body only once it took the last, so this stops growing while a
    /// streamed body's consumer stops reading.
    public func bodyBytesSent(by registration: StubRegistration) -> Int {
        state.withLock { $0.stubs.first { $0.registration == registration }?.bodyBytesSent ?? 0 }
    }

    /// The stubs that have answered no request yet.
    public var unusedStubs: [StubRegistration] {
        state.withLock { $0.stubs.filter { $0.matches == 0 }.map(\.registration) }
    }

    /// Throws when a stub answered nothing or a request matched no stub, naming each: call it
    /// at the end of a test (`try stubs.verifyAllMatched()`) with Swift Testing or XCTest.
    public func verifyAllMatched() throws(StubVerificationError) {
        let unused = unusedStubs
        let unmatched = unmatchedRequests
        guard unused.isEmpty, unmatched.isEmpty else {
            throw StubVerificationError(unusedStubs: unused, unmatchedRequests: unmatched)
        }
    }

    // MARK: Answering

    func answer(_ request: TransportStubRequest) async -> TransportStubAnswer {
        var recorded = RecordedRequest(
            method: request.method, url: request.url, headerLines: request.headerLines, body: request.body)
        let chosen = state.withLock { state -> (StubRegistration, Responder, Int)? in
            defer { state.received.append(recorded) }
            guard let index = state.stubs.lastIndex(where: { stub in
                (stub.limit.map { stub.matches < $0 } ?? true) && stub.matcher.matches(recorded)
            }) else { return nil }
            state.stubs[index].matches += 1
            recorded.stub = state.stubs[index].registration
            return (state.stubs[index].registration, state.stubs[index].responder, state.stubs[index].matches)
        }
        guard let (registration, responder, turn) = chosen else {
            return TransportStubAnswer(events: [.reject(unmatchedError(recorded))], delays: [.zero])
        }
        let response: StubResponse
        switch responder {
        case .sequence(let responses): response = responses[min(turn, responses.count) - 1]
        case .closure(let respond): response = await respond(recorded)
        }
        let plan = StubPlan(response, isHead: request.method == "HEAD")
        return TransportStubAnswer(events: plan.events, delays: plan.delays) { [self] bytes in
            state.withLock { state in
                if let index = state.stubs.firstIndex(where: { $0.registration == registration }) {
                    state.stubs[index].bodyBytesSent += bytes
                }
            }
        }
    }

    private func unmatchedError(_ request: RecordedRequest) -> CurlewError {
        let registered = state.withLock { state in
            state.stubs.map { "\($0.registration) (answered \($0.matches))" }
        }
        let list = registered.isEmpty ? "no stubs are registered" : "registered stubs: " + registered.joined(separator: "; ")
        return CurlewError(.transport, "no stub matches \(request); \(list)", url: request.url)
    }
}

/// What ``HTTPStubs/verifyAllMatched()`` found wrong.
public struct StubVerificationError: Error, Sendable, CustomStringConvertible {
    /// Stubs that answered no request.
    public let unusedStubs: [StubRegistration]
    /// Requests that no stub matched.
    public let unmatchedRequests: [RecordedRequest]

    public var description: String {
        var parts: [String] = []
        if !unusedStubs.isEmpty { parts.append("stubs never matched: " + unusedStubs.map(\.description).joined(separator: "; ")) }
        if !unmatchedRequests.isEmpty {
            parts.append("requests no stub matched: " + unmatchedRequests.map(\.description).joined(separator: "; "))
        }
        return parts.joined(separator: "\n")
    }
}

extension TransportStubAnswer {
    /// An answer that plays `events` back, each after its delay; `sent` counts body bytes taken.
    init(events: [TransportStubEvent], delays: [Duration], sent: (@Sendable (Int) -> Void)? = nil) {
        let position = Mutex(0)
        self.init { () async -> TransportStubEvent in
            let index = position.withLock { index -> Int in
                defer { index += 1 }
                return index
            }
            guard index < events.count else { return .end }
            if index > 0, case .body(let bytes) = events[index - 1] { sent?(bytes.count) }
            if delays[index] > .zero {
                do { try await Task.sleep(for: delays[index]) } catch { return .end }
            }
            return events[index]
        }
    }
}
