import Foundation

/// One line of results: what one client measured in one run of one scenario.
///
/// Every binary of the harness (the Swift clients, the C ceiling, and `run.sh` for curl and
/// wrk) prints exactly this shape, as one JSON object on one line.
public struct BenchResult: Codable, Sendable {
    /// The client's short name: curlew, ahc, urlsession, curl, wrk, rawcurl.
    public var client: String
    /// The scenario's name.
    public var scenario: String
    /// "ok", "n/a" (the client cannot run the scenario) or "error".
    public var status: String
    /// Why a result is n/a or an error, or a remark.
    public var note: String?
    /// Requests (or streams) measured.
    public var count: Int?
    /// Requests in flight at once.
    public var concurrency: Int?
    /// Wall-clock seconds of the measured phase.
    public var seconds: Double?
    /// Requests per second.
    public var reqPerSecond: Double?
    /// Median latency in milliseconds.
    public var p50Milliseconds: Double?
    /// 99th percentile latency in milliseconds.
    public var p99Milliseconds: Double?
    /// Client CPU seconds (user + system, all threads) per 1,000 requests.
    public var cpuSecondsPer1000: Double?
    /// Body bytes moved in the measured phase.
    public var bytes: Int64?
    /// Throughput in decimal megabytes (10^6 bytes) per second.
    public var megabytesPerSecond: Double?
    /// Peak resident set size of the client process (VmHWM), in KiB.
    public var peakRSSKiB: Int?
    /// many-streams: (peak RSS − RSS before the streams) / streams, in KiB.
    public var rssPerStreamKiB: Double?
    /// many-streams: the sum of all stream durations over the wall time, i.e. how many
    /// streams were open on average (shows whether the client really held them all at once).
    public var meanInFlight: Double?
    /// Requests that failed.
    public var errors: Int?
    /// The round of the run this result belongs to (added by `run.sh`).
    public var round: Int?
    /// The client's place (from 1) in its scenario's order that round (added by `run.sh`).
    public var position: Int?
    /// The 1-minute load average just before the client ran (added by `run.sh`).
    public var load1m: Double?
    /// TCP connections nginx accepted from the client during the run, from `stub_status`
    /// (added by `run.sh`; the stub requests and nginx's own upstream connections excluded).
    public var connectionsOpened: Int?

    enum CodingKeys: String, CodingKey {
        case client, scenario, status, note, count, concurrency, seconds, bytes, errors, round, position
        case load1m = "load_1m"
        case connectionsOpened = "connections_opened"
        case reqPerSecond = "req_per_s"
        case p50Milliseconds = "p50_ms"
        case p99Milliseconds = "p99_ms"
        case cpuSecondsPer1000 = "cpu_s_per_1000"
        case megabytesPerSecond = "mb_per_s"
        case peakRSSKiB = "peak_rss_kib"
        case rssPerStreamKiB = "rss_per_stream_kib"
        case meanInFlight = "mean_in_flight"
    }

    /// A result with only its identity and status filled in.
    public init(client: String, scenario: String, status: String = "ok", note: String? = nil) {
        self.client = client
        self.scenario = scenario
        self.status = status
        self.note = note
    }

    /// The result as one line of JSON.
    public func jsonLine() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self), let line = String(data: data, encoding: .utf8)
        else { return "{\"client\":\"\(client)\",\"scenario\":\"\(scenario)\",\"status\":\"error\"}" }
        return line
    }
}
