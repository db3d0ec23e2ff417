import Foundation
import HTTPTypes
import Synchronization

/// Records every request of a session as an HTTP Archive (HAR 1.2), the file browsers'
/// developer tools open: put it in ``SessionConfiguration/eventMonitors``.
///
/// ```swift
/// let recorder = HARRecorder()
/// var configuration = SessionConfiguration()
/// configuration.eventMonitors = [recorder]
/// let session = Session(configuration: configuration)
/// _ = try await session.request("https://example.com/").data()
/// try recorder.write(to: URL(fileURLWithPath: "session.har"))
/// ```
///
/// Each attempt is an entry, and each redirect hop of an attempt is an entry of its own (with
/// its own timings). An attempt that got no response (connection refused, timeout) is an
/// entry whose response has status 0, with the reason in the custom field `_error`, as
/// Chrome writes it; an attempt that got a response but failed afterwards (validation) keeps
/// the response and adds `_error`.
///
/// Secrets are redacted exactly as everywhere Curlew prints a request: credential headers
/// (`Authorization: Bearer ***`, `Cookie`, `Set-Cookie` values, fields named like secrets),
/// a password in a URL, secret query values (`access_token=***`) and, in JSON and form
/// bodies, secret fields. Bodies are not recorded unless ``Options`` asks: even redacted they
/// may hold personal data. The header fields are those of the request Curlew was given, after
/// adapters; what the session adds on the wire (`User-Agent`, `Accept-Encoding`, cookies from
/// its cookie storage) is not listed: a ``WireTrace`` shows the head as sent.
///
/// Streamed requests (``DataRequest/bytes``) are not recorded: their monitor hooks end at
/// the response head.
public final class HARRecorder: EventMonitor {
    /// What is recorded beside the heads.
    public struct Options: Sendable {
        /// Whether request bodies held in memory are recorded (files and streams never are).
        public var recordsRequestBodies = false
        /// Whether response bodies are recorded (data requests; downloads never are).
        public var recordsResponseBodies = false
        /// The most bytes of a body kept; a longer one is cut, and its entry says so.
        public var maximumBodySize = 1 << 20
        /// The most entries kept; past it the oldest are dropped (the log's comment says how
        /// many).
        public var maximumEntries = 10_000

        /// Heads only, by default.
        public init(
            recordsRequestBodies: Bool = false, recordsResponseBodies: Bool = false, maximumBodySize: Int = 1 << 20,
            maximumEntries: Int = 10_000
        ) {
            self.recordsRequestBodies = recordsRequestBodies
            self.recordsResponseBodies = recordsResponseBodies
            self.maximumBodySize = maximumBodySize
            self.maximumEntries = maximumEntries
        }
    }

    /// What is recorded.
    public let options: Options
    /// The `creator` of the log.
    public let creator: HARCreator

    private struct AttemptKey: Hashable {
        let id: RequestID
        let attempt: Int
    }

    private struct Attempt {
        let started: Date
        var request: OutgoingRequest
        var metrics: TransferMetrics?
    }

    private struct State {
        var attempts: [AttemptKey: Attempt] = [:]
        var entries: [HAREntry] = []
        var dropped = 0
    }

    private let state = Mutex(State())

    /// A recorder; `creator` names Curlew and its version unless given.
    public init(options: Options = Options(), creator: HARCreator? = nil) {
        self.options = options
        self.creator = creator ?? HARCreator(name: "Curlew", version: CurlewVersion.current)
    }

    // MARK: The archive

    /// The entries recorded so far, in the order they started.
    public func archive() -> HARArchive {
        let (entries, dropped) = state.withLock { ($0.entries, $0.dropped) }
        let sorted = entries.enumerated().sorted { a, b in
            a.element.startedDateTime == b.element.startedDateTime
                ? a.offset < b.offset : a.element.startedDateTime < b.element.startedDateTime
        }.map(\.element)
        let comment = dropped > 0 ? "the \(dropped) oldest entries were dropped (maximumEntries)" : nil
        return HARArchive(log: HARLog(creator: creator, entries: sorted, comment: comment))
    }

    /// Writes ``archive()`` to `url` atomically, readable by the owner only (see
    /// ``HARArchive/write(to:)``).
    public func write(to url: URL) throws(CurlewError) {
        try archive().write(to: url)
    }

    /// Forgets the entries recorded so far (requests under way are still recorded).
    public func removeAll() {
        state.withLock {
            $0.entries.removeAll()
            $0.dropped = 0
        }
    }

    // MARK: Hooks

    /// Notes when the attempt started and what it sends.
    public func request(_ id: RequestID, didStart request: OutgoingRequest, attempt: Int) {
        let started = Date()
        state.withLock { $0.attempts[AttemptKey(id: id, attempt: attempt)] = Attempt(started: started, request: request) }
    }

    /// Notes the attempt's timings.
    public func request(_ id: RequestID, didGather metrics: TransferMetrics, for request: OutgoingRequest, attempt: Int) {
        state.withLock { $0.attempts[AttemptKey(id: id, attempt: attempt)]?.metrics = metrics }
    }

    /// Records the failed attempt.
    public func request(
        _ id: RequestID, willRetry request: OutgoingRequest, after error: CurlewError, attempt: Int, delay: Duration
    ) {
        finish(AttemptKey(id: id, attempt: attempt), result: .failure(error))
    }

    /// Records the last attempt, with its redirect hops.
    public func request(
        _ id: RequestID, didFinish request: OutgoingRequest?, with result: Result<TransferCompletion, CurlewError>,
        attempts: Int
    ) {
        finish(AttemptKey(id: id, attempt: attempts), result: result)
    }

    private func finish(_ key: AttemptKey, result: Result<TransferCompletion, CurlewError>) {
        guard let attempt = state.withLock({ $0.attempts.removeValue(forKey: key) }) else { return }
        let builder = HAREntryBuilder(options: options)
        let entries: [HAREntry]
        switch result {
        case .success(let completion):
            entries = builder.entries(started: attempt.started, request: attempt.request, completion: completion)
        case .failure(let error):
            entries = [builder.failedEntry(started: attempt.started, request: attempt.request, metrics: attempt.metrics, error: error)]
        }
        let limit = max(options.maximumEntries, 0)
        state.withLock { state in
            state.entries += entries
            let excess = state.entries.count - limit
            if excess > 0 {
                state.entries.removeFirst(excess)
                state.dropped += excess
            }
        }
    }
}
