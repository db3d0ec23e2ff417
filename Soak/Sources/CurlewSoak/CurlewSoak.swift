// curlew-soak: a bounded soak run of Curlew against the in-process test server.
//
//   curlew-soak MINUTES [--concurrency N] [--seed S]
//
// Keeps N requests (default 32) in flight for MINUTES, mixing good routes, fault routes,
// streams, uploads, downloads and cancellations, and checks:
//  - every started request ends exactly once, in the soak's own ledger (no request hangs: one
//    in flight for longer than `stuckAfter` counts as lost) and in Curlew's EventMonitor hooks
//    (each request is created once and, unless it is a `bytes` stream, finishes once, with the
//    outcome its caller saw);
//  - every outcome is the expected one (a good route succeeds with the right body, a fault route
//    fails with its kind, a cancelled request fails as cancelled);
//  - after the warm-up minute, resident memory, threads and open file descriptors stay within
//    the bounds below; after the session shuts down, threads and descriptors return to what they
//    were before it was made.
// Prints a line every minute and a final `VERDICT: PASS|FAIL …` line; exits 1 on FAIL.

import Curlew
import Foundation
import HTTPTypes
import Synchronization
import TestServer

// MARK: Arguments and bounds

struct Arguments {
    var minutes = 10.0
    var concurrency = 32
    var seed: UInt64 = 0x5EED

    init() {
        var rest = CommandLine.arguments.dropFirst()
        while let argument = rest.popFirst() {
            switch argument {
            case "--concurrency": concurrency = rest.popFirst().flatMap { Int($0) } ?? concurrency
            case "--seed": seed = rest.popFirst().flatMap { UInt64($0) } ?? seed
            default:
                guard let value = Double(argument), value > 0, value <= 24 * 60 else {
                    FileHandle.standardError.write(Data("usage: curlew-soak MINUTES [--concurrency N] [--seed S]\n".utf8))
                    exit(2)
                }
                minutes = value
            }
        }
    }
}

/// Growth allowed after the warm-up sample (the end of the first minute), at every later sample.
enum Bounds {
    /// Resident memory may grow by this much over the warm-up sample.
    static let rssGrowth = 64 << 20
    /// Threads: Swift's pool, NIO's and the session's threads are fixed; a few transient ones
    /// (libcurl's resolver threads, Foundation's) are allowed.
    static let threadGrowth = 8
    /// Descriptors vary with the connections open at the instant of sampling: at most one client
    /// and one server socket per request in flight, plus idle keep-alive connections.
    static func fdGrowth(concurrency: Int) -> Int { 2 * concurrency + 16 }
    /// After the session shut down and the server closed its connections, descriptors and
    /// threads must be back to the count before the session was made, within this slack.
    static let fdSlackAfterShutdown = 4
    static let threadSlackAfterShutdown = 2
    /// A request still in flight after this long is lost.
    static let stuckAfter: Duration = .seconds(60)
    /// How long the run waits for in-flight requests to end after the time is up.
    static let drainTimeout: Duration = .seconds(90)
}

// MARK: /proc/self

enum ProcessStats {
    static func rssBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return -1 }
        let fields = line.dropFirst("VmRSS:".count).split(whereSeparator: \.isWhitespace)
        return (fields.first.flatMap { Int($0) } ?? -1) * 1024
    }

    static func count(_ directory: String) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: directory).count) ?? -1
    }

    static var threads: Int { count("/proc/self/task") }
    static var fds: Int { count("/proc/self/fd") }
}

// MARK: Scenarios and expectations

enum Scenario: String, CaseIterable, Sendable {
    case smallGet, delayGet, post, bytesStream, bytesStreamEarlyExit, upload, uploadStream, uploadFile
    case download, downloadEvents, cancelInFlight, cancelTask, cancelStream
    case closeMidBody, resetAfterHead, truncatedGzip, status500, status500Validated

    /// How often each scenario is picked, relative to the others.
    var weight: Int {
        switch self {
        case .smallGet: return 8
        case .delayGet, .post: return 4
        default: return 2
        }
    }
}

enum Outcome: Sendable, Hashable {
    case success
    case failure(CurlewError.Kind)

    var label: String {
        switch self {
        case .success: return "ok"
        case .failure(let kind): return "\(kind)"
        }
    }
}

/// A finished scenario: its outcome, and what went wrong beyond the outcome (a wrong body, a
/// duplicated completion event), if anything.
struct Finished: Sendable {
    var outcome: Outcome
    var problem: String?
}

// MARK: The soak's own ledger: starts and ends per request id

struct LedgerEntry {
    var scenario: Scenario
    var started: ContinuousClock.Instant
    var starts = 1
    var ends = 0
}

struct MinuteCounters {
    var completions = 0
    var byOutcome: [String: Int] = [:]
    var unexpected = 0
}

final class Ledger: Sendable {
    struct State {
        var entries: [Int: LedgerEntry] = [:]
        var inFlight = Set<Int>()
        var minute = MinuteCounters()
        var total = MinuteCounters()
        var started = 0
        var duplicatedStarts: [Int] = []
        var duplicatedEnds: [Int] = []
        var endsWithoutStart: [Int] = []
        var problems: [String] = []
        var problemCount = 0
        var perScenario: [Scenario: [String: Int]] = [:]
    }
    let state = Mutex(State())

    func start(_ id: Int, _ scenario: Scenario) {
        state.withLock { state in
            if state.entries[id] != nil {
                state.entries[id]!.starts += 1
                state.duplicatedStarts.append(id)
                return
            }
            state.entries[id] = LedgerEntry(scenario: scenario, started: .now)
            state.inFlight.insert(id)
            state.started += 1
        }
    }

    func end(_ id: Int, _ result: Finished, expected: Bool) {
        state.withLock { state in
            guard var entry = state.entries[id] else {
                state.endsWithoutStart.append(id)
                return
            }
            entry.ends += 1
            state.entries[id] = entry
            if entry.ends > 1 {
                state.duplicatedEnds.append(id)
                return
            }
            state.inFlight.remove(id)
            for counters in [\State.minute, \State.total] {
                state[keyPath: counters].completions += 1
                state[keyPath: counters].byOutcome[result.outcome.label, default: 0] += 1
                if !expected { state[keyPath: counters].unexpected += 1 }
            }
            state.perScenario[entry.scenario, default: [:]][result.outcome.label, default: 0] += 1
            if !expected {
                state.problemCount += 1
                if state.problems.count < 30 {
                    state.problems.append("#\(id) \(entry.scenario.rawValue): \(result.outcome.label)\(result.problem.map { " (\($0))" } ?? "")")
                }
            }
        }
    }

    func takeMinute() -> MinuteCounters {
        state.withLock { state in
            defer { state.minute = MinuteCounters() }
            return state.minute
        }
    }

    /// Requests in flight for longer than `limit`.
    func stuck(longerThan limit: Duration) -> [(Int, Scenario, Duration)] {
        let now = ContinuousClock.now
        return state.withLock { state in
            state.inFlight.compactMap { id in
                guard let entry = state.entries[id], now - entry.started > limit else { return nil }
                return (id, entry.scenario, now - entry.started)
            }.sorted { $0.0 < $1.0 }
        }
    }

    var inFlightCount: Int { state.withLock { $0.inFlight.count } }
}

// MARK: Curlew's view: EventMonitor hooks per RequestID

let soakIDField = HTTPField.Name("X-Soak-ID")!

final class LedgerMonitor: EventMonitor {
    struct Entry {
        var soakID: Int?
        var created = 0
        var finished = 0
        var finishedWith: Outcome?
    }
    let entries = Mutex<[RequestID: Entry]>([:])
    /// Soak id → RequestID, to compare the monitor's outcome with the caller's.
    let bySoakID = Mutex<[Int: RequestID]>([:])

    func requestCreated(_ id: RequestID, request: OutgoingRequest?) {
        let soakID = request?.headerFields[soakIDField].flatMap { Int($0) }
        entries.withLock { $0[id, default: Entry()].created += 1; $0[id]!.soakID = soakID }
        if let soakID { bySoakID.withLock { $0[soakID] = id } }
    }

    func request(
        _ id: RequestID, didFinish request: OutgoingRequest?, with result: Swift.Result<TransferCompletion, CurlewError>,
        attempts: Int
    ) {
        let outcome: Outcome
        switch result {
        case .success: outcome = .success
        case .failure(let error): outcome = .failure(error.kind)
        }
        entries.withLock { $0[id, default: Entry()].finished += 1; $0[id]!.finishedWith = outcome }
    }

    func entry(forSoakID soakID: Int) -> Entry? {
        guard let id = bySoakID.withLock({ $0[soakID] }) else { return nil }
        return entries.withLock { $0[id] }
    }

    /// Drops the entries of finished requests the soak has already checked, so the maps stay small.
    func forget(soakID: Int) {
        guard let id = bySoakID.withLock({ $0.removeValue(forKey: soakID) }) else { return }
        entries.withLock { _ = $0.removeValue(forKey: id) }
    }

    var count: Int { entries.withLock { $0.count } }
}

// MARK: Running one scenario

struct Runner: Sendable {
    let session: Session
    let server: TestServer
    let monitor: LedgerMonitor
    let temporaryDirectory: URL

    func headers(_ id: Int) -> HTTPFields {
        var fields = HTTPFields()
        fields[soakIDField] = String(id)
        return fields
    }

    func url(_ path: String) -> URL { server.url(path) }

    /// How long the server takes to answer a request that is then cancelled.
    static let cancelDelayMilliseconds = 3000

    static func outcome(_ error: any Error) -> Finished {
        Finished(outcome: .failure((error as? CurlewError)?.kind ?? .transport), problem: error is CurlewError ? nil : "not a CurlewError: \(error)")
    }

    /// Runs `scenario` as request `id`; returns what happened and what was expected.
    func run(_ scenario: Scenario, id: Int, random: inout SplitMix) async -> (Finished, expected: Set<Outcome>) {
        let h = headers(id)
        switch scenario {
        case .smallGet:
            return (await collect(session.request(url("/get?n=\(id)"), headers: h)) { data in
                data.count > 20 ? nil : "body of \(data.count) bytes"
            }, [.success])

        case .delayGet:
            return (await collect(session.request(url("/delay/50"), headers: h)) { _ in nil }, [.success])

        case .post:
            let size = Int(random.next() % 64_000)
            let body = Data(TestServer.expectedBytes(count: size, seed: UInt64(id)))
            return (await collect(session.request(url("/post"), method: .post, headers: h, body: .data(body))) { data in
                let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
                return (json?["bodyLength"] as? Int) == size ? nil : "echoed bodyLength \(json?["bodyLength"] ?? "nil") for \(size)"
            }, [.success])

        case .bytesStream:
            let size = 1 + Int(random.next() % 300_000)
            let request = session.request(url("/stream-bytes/\(size)?chunk=8192&seed=\(id)"), headers: h)
            do {
                var total = 0
                for try await chunk in request.bytes { total += chunk.count }
                return (Finished(outcome: .success, problem: total == size ? nil : "streamed \(total) of \(size) bytes"), [.success])
            } catch {
                return (Self.outcome(error), [.success])
            }

        case .bytesStreamEarlyExit:
            // Drop the iterator after the first chunk of a long, slow body: the transfer must end.
            let request = session.request(url("/drip?bytes=100000&duration=5000&chunks=100"), headers: h)
            do {
                for try await chunk in request.bytes where !chunk.isEmpty { break }
                return (Finished(outcome: .success), [.success])
            } catch {
                return (Self.outcome(error), [.success])
            }

        case .upload:
            let size = Int(random.next() % 500_000)
            let body = Data(TestServer.expectedBytes(count: size, seed: UInt64(id)))
            return (await collect(session.request(url("/upload"), method: .put, headers: h, body: .data(body))) { data in
                Self.checkUpload(data, size: size, crc: TestServer.crc32(of: body))
            }, [.success])

        case .uploadStream:
            let size = Int(random.next() % 500_000)
            let bytes = TestServer.expectedBytes(count: size, seed: UInt64(id))
            let crc = TestServer.crc32(of: Data(bytes))
            let chunked = random.next() % 2 == 0
            let body = RequestBody.stream(length: chunked ? nil : Int64(size)) {
                AsyncStream<[UInt8]> { continuation in
                    var offset = 0
                    while offset < bytes.count {
                        let end = min(offset + 16_384, bytes.count)
                        continuation.yield(Array(bytes[offset..<end]))
                        offset = end
                    }
                    continuation.finish()
                }
            }
            return (await collect(session.request(url("/upload"), method: .post, headers: h, body: body)) { data in
                Self.checkUpload(data, size: size, crc: crc)
            }, [.success])

        case .uploadFile:
            let size = Int(random.next() % 1_000_000)
            let bytes = Data(TestServer.expectedBytes(count: size, seed: UInt64(id)))
            let file = temporaryDirectory.appendingPathComponent("upload-\(id)")
            defer { try? FileManager.default.removeItem(at: file) }
            do { try bytes.write(to: file) } catch {
                return (Finished(outcome: .failure(.fileSystem), problem: "cannot write \(file.path): \(error)"), [.success])
            }
            return (await collect(session.request(url("/upload"), method: .put, headers: h, body: .file(file))) { data in
                Self.checkUpload(data, size: size, crc: TestServer.crc32(of: bytes))
            }, [.success])

        case .download:
            let size = Int(random.next() % 2_000_000)
            let file = temporaryDirectory.appendingPathComponent("download-\(id)")
            defer { try? FileManager.default.removeItem(at: file) }
            do {
                let saved = try await session.download(url("/bytes/\(size)?seed=\(id)"), headers: h, to: .file(file)).validate().fileURL()
                let attributes = try? FileManager.default.attributesOfItem(atPath: saved.path)
                let written = (attributes?[.size] as? NSNumber)?.intValue ?? -1
                try? FileManager.default.removeItem(at: saved)
                return (Finished(outcome: .success, problem: written == size ? nil : "file of \(written) bytes for \(size)"), [.success])
            } catch {
                return (Self.outcome(error), [.success])
            }

        case .downloadEvents:
            // A download through its event stream: exactly one `.completed`, then the end.
            let size = Int(random.next() % 1_000_000)
            let file = temporaryDirectory.appendingPathComponent("events-\(id)")
            defer { try? FileManager.default.removeItem(at: file) }
            var completed = 0
            do {
                for try await event in session.download(url("/bytes/\(size)?seed=\(id)"), headers: h, to: .file(file)).events {
                    if case .completed = event { completed += 1 }
                }
                return (Finished(outcome: .success, problem: completed == 1 ? nil : "\(completed) completed events"), [.success])
            } catch {
                return (Self.outcome(error), [.success])
            }

        case .cancelInFlight, .cancelTask:
            // The server answers after `cancelDelay`. Half of the time the cancel waits until the
            // server has the request (in flight for sure); otherwise it comes after a random
            // 0-200 ms, which may be before the transfer started. Either way it must win; only a
            // cancel later than the server's answer (a stalled machine) may see a success.
            let path = "/anything/soak-\(id)"
            var fields = h
            fields[HTTPField.Name("X-Test-Delay-Ms")!] = String(Self.cancelDelayMilliseconds)
            let request = session.request(url(path), headers: fields)
            let started = ContinuousClock.now
            let waiter = Task { () -> Swift.Result<Data, CurlewError> in
                do { return .success(try await request.data()) } catch { return .failure(error as? CurlewError ?? CurlewError(.transport, "\(error)")) }
            }
            if random.next() % 2 == 0 {
                let deadline = ContinuousClock.now + .seconds(2)
                while server.requestCount(path: path) == 0, ContinuousClock.now < deadline {
                    try? await Task.sleep(for: .milliseconds(10))
                }
            } else {
                try? await Task.sleep(for: .milliseconds(Int(random.next() % 200)))
            }
            let cancelledAfter = ContinuousClock.now - started
            let late = cancelledAfter >= .milliseconds(Self.cancelDelayMilliseconds - 200)
            if scenario == .cancelInFlight { request.cancel() } else { waiter.cancel() }
            let kind: CurlewError.Kind = scenario == .cancelInFlight ? .cancelled : .taskCancelled
            let expected: Set<Outcome> = late ? [.failure(kind), .success] : [.failure(kind)]
            switch await waiter.value {
            case .success:
                return (Finished(outcome: .success, problem: late ? nil : "succeeded although cancelled after \(cancelledAfter)"), expected)
            case .failure(let error): return (Self.outcome(error), expected)
            }

        case .cancelStream:
            // request.cancel() while a slow body is being streamed.
            let request = session.request(url("/drip?bytes=100000&duration=5000&chunks=100"), headers: h)
            let reader = Task { () -> Swift.Result<Int, CurlewError> in
                do {
                    var total = 0
                    for try await chunk in request.bytes { total += chunk.count }
                    return .success(total)
                } catch {
                    return .failure(error as? CurlewError ?? CurlewError(.transport, "\(error)"))
                }
            }
            let started = ContinuousClock.now
            try? await Task.sleep(for: .milliseconds(Int(50 + random.next() % 300)))
            let late = ContinuousClock.now - started >= .milliseconds(4800)
            request.cancel()
            let expected: Set<Outcome> = late ? [.failure(.cancelled), .success] : [.failure(.cancelled)]
            switch await reader.value {
            case .success: return (Finished(outcome: .success), expected)
            case .failure(let error): return (Self.outcome(error), expected)
            }

        case .closeMidBody:
            return (await collect(session.request(url("/fault/close-mid-body?length=20000&send=5000"), headers: h)) { _ in nil },
                    [.failure(.connectionClosedMidBody)])

        case .resetAfterHead:
            // An abortive close (RST) after the head and part of the body: libcurl's "Recv
            // failure: Connection reset by peer" (CURLE_RECV_ERROR, 56), which Curlew maps to
            // .transport.
            return (await collect(session.request(url("/fault/reset-after-head?length=20000&send=1000"), headers: h)) { _ in nil },
                    [.failure(.transport)])

        case .truncatedGzip:
            return (await collect(session.request(url("/coded?coding=gzip&size=100000&cut=16"), headers: h)) { _ in nil },
                    [.failure(.malformedResponse)])

        case .status500:
            // Without validate() a 500 is a response like any other.
            do {
                let response = try await session.request(url("/status/500"), headers: h).response
                return (Finished(outcome: .success, problem: response.status.code == 500 ? nil : "status \(response.status.code)"), [.success])
            } catch {
                return (Self.outcome(error), [.success])
            }

        case .status500Validated:
            return (await collect(session.request(url("/status/500"), headers: h).validate()) { _ in nil },
                    [.failure(.unacceptableStatus)])
        }
    }

    /// `request.data()`, with `check` run on a successful body.
    func collect(_ request: DataRequest, check: (Data) -> String?) async -> Finished {
        do {
            let data = try await request.data()
            return Finished(outcome: .success, problem: check(data))
        } catch {
            return Self.outcome(error)
        }
    }

    static func checkUpload(_ data: Data, size: Int, crc: UInt32) -> String? {
        let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        let bytes = json?["bytes"] as? Int
        let received = (json?["crc32"] as? Int).map { UInt32(truncatingIfNeeded: $0) }
        guard bytes == size, received == crc else {
            return "server received \(bytes.map(String.init) ?? "?") bytes, crc \(received.map { String($0) } ?? "?"); sent \(size), crc \(crc)"
        }
        return nil
    }
}

/// A small deterministic generator, so a run can be repeated with `--seed`.
struct SplitMix: Sendable {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

// MARK: Main

func log(_ line: String) {
    print(line)
    fflush(nil)
}

func mib(_ bytes: Int) -> String { String(format: "%.1f", Double(bytes) / 1_048_576) }

struct Sample { var minute: Int; var rss: Int; var threads: Int; var fds: Int }

/// Runs one request through the ledger and checks Curlew's monitor hooks for it.
final class Checker: Sendable {
    let runner: Runner
    let ledger: Ledger
    let monitor: LedgerMonitor
    let weighted = Scenario.allCases.flatMap { Array(repeating: $0, count: $0.weight) }
    let mismatches = Mutex<[String]>([])
    let mismatchCount = Atomic<Int>(0)

    init(runner: Runner, ledger: Ledger, monitor: LedgerMonitor) {
        self.runner = runner
        self.ledger = ledger
        self.monitor = monitor
    }

    func runOne(id: Int, seed: UInt64) async {
        var random = SplitMix(state: seed)
        let scenario = weighted[Int(random.next() % UInt64(weighted.count))]
        ledger.start(id, scenario)
        let (result, expected) = await runner.run(scenario, id: id, random: &random)
        var checked = result
        var isExpected = expected.contains(result.outcome) && result.problem == nil
        // Curlew's hooks: created once; finished once with the caller's outcome (not for streams).
        let entry = monitor.entry(forSoakID: id)
        let streams: Set<Scenario> = [.bytesStream, .bytesStreamEarlyExit, .cancelStream]
        var mismatch: String?
        if let entry {
            if entry.created != 1 {
                mismatch = "requestCreated called \(entry.created) times"
            } else if streams.contains(scenario) {
                if entry.finished != 0 { mismatch = "didFinish called \(entry.finished) times for a stream" }
            } else if entry.finished != 1 {
                mismatch = "didFinish called \(entry.finished) times"
            } else if let finishedWith = entry.finishedWith, finishedWith != result.outcome {
                mismatch = "didFinish reported \(finishedWith.label), the caller saw \(result.outcome.label)"
            }
        } else {
            mismatch = "no requestCreated hook"
        }
        monitor.forget(soakID: id)
        if let mismatch {
            mismatchCount.add(1, ordering: .relaxed)
            mismatches.withLock { if $0.count < 30 { $0.append("#\(id) \(scenario.rawValue): \(mismatch)") } }
            checked.problem = [checked.problem, mismatch].compactMap { $0 }.joined(separator: "; ")
            isExpected = false
        }
        ledger.end(id, checked, expected: isExpected)
    }
}

@main
enum CurlewSoak {
    static func main() async throws {
        let arguments = Arguments()
        let clock = ContinuousClock()
        let runStart = clock.now
        let deadline = runStart + .seconds(arguments.minutes * 60)
        var verdictProblems: [String] = []

        let server = try await TestServer.start()
        let temporaryDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-soak-\(getpid())")
        try FileManager.default.createDirectory(at: temporaryDirectory, withIntermediateDirectories: true)
        // Before the session exists: what must come back after it has shut down.
        try await Task.sleep(for: .milliseconds(200))
        let baseFDs = ProcessStats.fds
        let baseThreads = ProcessStats.threads

        let monitor = LedgerMonitor()
        var configuration = SessionConfiguration()
        configuration.eventMonitors = [monitor]
        let session = Session(configuration: configuration)
        let runner = Runner(session: session, server: server, monitor: monitor, temporaryDirectory: temporaryDirectory)
        let ledger = Ledger()

        log("curlew-soak: \(arguments.minutes) min, \(arguments.concurrency) in flight, seed \(arguments.seed), server \(server.baseURL)")
        log("before the session: rss \(mib(ProcessStats.rssBytes())) MiB, threads \(baseThreads), fds \(baseFDs)")
        log("bounds after warm-up (minute 1): rss +\(Bounds.rssGrowth >> 20) MiB, threads +\(Bounds.threadGrowth), fds +\(Bounds.fdGrowth(concurrency: arguments.concurrency)); after shutdown: threads +\(Bounds.threadSlackAfterShutdown), fds +\(Bounds.fdSlackAfterShutdown) over the counts before the session; no request in flight longer than \(Bounds.stuckAfter)")

        let checker = Checker(runner: runner, ledger: ledger, monitor: monitor)



        // The driver: a sliding window of `concurrency` child tasks, until the deadline.
        let driverDone = Atomic<Bool>(false)
        let startedCount = Atomic<Int>(0)
        _ = Task {
            await withTaskGroup(of: Void.self) { group in
                var nextID = 0
                var seeds = SplitMix(state: arguments.seed)
                func addOne() {
                    nextID += 1
                    let id = nextID
                    let seed = seeds.next()
                    startedCount.store(id, ordering: .relaxed)
                    group.addTask { await checker.runOne(id: id, seed: seed) }
                }
                for _ in 0..<arguments.concurrency { addOne() }
                for await _ in group {
                    if ContinuousClock.now < deadline { addOne() }
                }
            }
            driverDone.store(true, ordering: .releasing)
        }

        // Per-minute report, and the watchdog for stuck requests.
        var samples: [Sample] = []
        log("")
        log("| min | completions | failures by kind (expected and not) | unexpected | in flight | RSS MiB | threads | fds |")
        log("|----:|------------:|-------------------------------------|-----------:|----------:|--------:|--------:|----:|")
        var minute = 0
        var nextReport = runStart + .seconds(60)
        var stuckReported = Set<Int>()
        while clock.now < deadline {
            try? await Task.sleep(until: min(nextReport, deadline, clock.now + .seconds(5)), clock: clock)
            for (id, scenario, age) in ledger.stuck(longerThan: Bounds.stuckAfter) where !stuckReported.contains(id) {
                stuckReported.insert(id)
                log("LOST? request #\(id) (\(scenario.rawValue)) in flight for \(age)")
            }
            if clock.now >= nextReport || clock.now >= deadline {
                minute += 1
                nextReport = nextReport + .seconds(60)
                let counters = ledger.takeMinute()
                let failures = counters.byOutcome.filter { $0.key != "ok" }.sorted { $0.key < $1.key }
                    .map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                let sample = Sample(minute: minute, rss: ProcessStats.rssBytes(), threads: ProcessStats.threads, fds: ProcessStats.fds)
                samples.append(sample)
                log("| \(minute) | \(counters.completions) | \(failures) | \(counters.unexpected) | \(ledger.inFlightCount) | \(mib(sample.rss)) | \(sample.threads) | \(sample.fds) |")
            }
        }

        // Drain: no new requests start; wait (bounded) for the ones in flight.
        let drainStart = clock.now
        while !driverDone.load(ordering: .acquiring), clock.now - drainStart < Bounds.drainTimeout {
            try? await Task.sleep(for: .milliseconds(100))
        }
        let drained = driverDone.load(ordering: .acquiring)

        let final = ledger.state.withLock { $0 }
        log("")
        log("started \(final.started), completed \(final.total.completions), in flight \(final.inFlight.count), unexpected outcomes \(final.total.unexpected), monitor mismatches \(checker.mismatchCount.load(ordering: .relaxed))")
        log("outcomes by scenario:")
        for scenario in Scenario.allCases {
            let outcomes = (final.perScenario[scenario] ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            log("  \(scenario.rawValue): \(outcomes)")
        }

        if !drained || !final.inFlight.isEmpty {
            let lost = final.inFlight.sorted().prefix(20).map { id in "#\(id) \(final.entries[id]?.scenario.rawValue ?? "?")" }
            verdictProblems.append("\(final.inFlight.count) request(s) never completed: \(lost.joined(separator: ", "))")
        }
        if final.started != final.total.completions && drained {
            verdictProblems.append("started \(final.started) but completed \(final.total.completions)")
        }
        if !final.duplicatedStarts.isEmpty || !final.duplicatedEnds.isEmpty || !final.endsWithoutStart.isEmpty {
            verdictProblems.append("duplicated starts \(final.duplicatedStarts.prefix(10)), duplicated ends \(final.duplicatedEnds.prefix(10)), ends without start \(final.endsWithoutStart.prefix(10))")
        }
        if final.total.unexpected > 0 {
            verdictProblems.append("\(final.total.unexpected) unexpected outcome(s); first ones: \(final.problems.prefix(10).joined(separator: "; "))")
        }
        if !samples.isEmpty {
            let warm = samples[0]
            for sample in samples.dropFirst() {
                if sample.rss - warm.rss > Bounds.rssGrowth {
                    verdictProblems.append("minute \(sample.minute): rss \(mib(sample.rss)) MiB, more than \(Bounds.rssGrowth >> 20) MiB over warm-up's \(mib(warm.rss))")
                }
                if sample.threads - warm.threads > Bounds.threadGrowth {
                    verdictProblems.append("minute \(sample.minute): \(sample.threads) threads, warm-up had \(warm.threads)")
                }
                if sample.fds - warm.fds > Bounds.fdGrowth(concurrency: arguments.concurrency) {
                    verdictProblems.append("minute \(sample.minute): \(sample.fds) fds, warm-up had \(warm.fds)")
                }
            }
        }

        // Only when everything ended: shut the session down and check that its threads and sockets go.
        if drained {
            await session.shutdown()
            // The server closes its side when it reads the client's close; give it a moment.
            var fdsAfter = ProcessStats.fds
            var threadsAfter = ProcessStats.threads
            let settleStart = clock.now
            while fdsAfter > baseFDs + Bounds.fdSlackAfterShutdown || threadsAfter > baseThreads + Bounds.threadSlackAfterShutdown,
                clock.now - settleStart < .seconds(10)
            {
                try? await Task.sleep(for: .milliseconds(200))
                fdsAfter = ProcessStats.fds
                threadsAfter = ProcessStats.threads
            }
            log("after shutdown: rss \(mib(ProcessStats.rssBytes())) MiB, threads \(threadsAfter) (before the session \(baseThreads)), fds \(fdsAfter) (before \(baseFDs)), server connections open \(server.openConnectionCount)")
            if fdsAfter > baseFDs + Bounds.fdSlackAfterShutdown {
                verdictProblems.append("\(fdsAfter) fds after shutdown, \(baseFDs) before the session")
            }
            if threadsAfter > baseThreads + Bounds.threadSlackAfterShutdown {
                verdictProblems.append("\(threadsAfter) threads after shutdown, \(baseThreads) before the session")
            }
            let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: temporaryDirectory.path)) ?? []
            if !leftovers.isEmpty {
                verdictProblems.append("\(leftovers.count) temporary file(s) left behind: \(leftovers.prefix(5))")
            }
            try? await server.shutdown()
        }
        try? FileManager.default.removeItem(at: temporaryDirectory)

        for line in checker.mismatches.withLock({ $0 }) { log("monitor: \(line)") }
        let elapsed = clock.now - runStart
        if verdictProblems.isEmpty {
            log("VERDICT: PASS — \(final.started) requests in \(elapsed), each completed exactly once with the expected outcome; rss, threads and fds within bounds")
            exit(0)
        } else {
            for problem in verdictProblems { log("problem: \(problem)") }
            log("VERDICT: FAIL — \(verdictProblems.count) problem(s) in \(final.started) requests over \(elapsed)")
            exit(1)
        }
    }
}
