import BenchSupport

/// The medians of one client in one scenario, over the rounds of a run.
struct ResultSummary: Codable, Sendable {
    /// "ok" when at least one round succeeded, else the status of the last round.
    var status: String
    /// A note from the rounds (why n/a, the first error).
    var note: String?
    /// How many rounds succeeded, of how many ran.
    var okRuns: Int
    var runs: Int
    var reqPerSecond: Double?
    var p50Milliseconds: Double?
    var p99Milliseconds: Double?
    var cpuSecondsPer1000: Double?
    var megabytesPerSecond: Double?
    var peakRSSKiB: Double?
    var rssPerStreamKiB: Double?
    var meanInFlight: Double?
    var seconds: Double?
    /// Connections nginx accepted from the client per run: the median, the fewest, the most.
    var connectionsOpened: Double?
    var fewestConnections: Int?
    var mostConnections: Int?

    enum CodingKeys: String, CodingKey {
        case status, note, runs, seconds
        case okRuns = "ok_runs"
        case reqPerSecond = "req_per_s"
        case p50Milliseconds = "p50_ms"
        case p99Milliseconds = "p99_ms"
        case cpuSecondsPer1000 = "cpu_s_per_1000"
        case megabytesPerSecond = "mb_per_s"
        case peakRSSKiB = "peak_rss_kib"
        case rssPerStreamKiB = "rss_per_stream_kib"
        case meanInFlight = "mean_in_flight"
        case connectionsOpened = "connections_opened"
        case fewestConnections = "fewest_connections"
        case mostConnections = "most_connections"
    }

    /// Summarizes the rounds of one client in one scenario.
    init(_ results: [BenchResult]) {
        let ok = results.filter { $0.status == "ok" }
        runs = results.count
        okRuns = ok.count
        status = ok.isEmpty ? (results.last?.status ?? "missing") : "ok"
        note = ok.isEmpty ? results.last?.note : ok.compactMap(\.note).first
        func median(_ values: [Double]) -> Double? { values.median }
        reqPerSecond = median(ok.compactMap(\.reqPerSecond))
        p50Milliseconds = median(ok.compactMap(\.p50Milliseconds))
        p99Milliseconds = median(ok.compactMap(\.p99Milliseconds))
        cpuSecondsPer1000 = median(ok.compactMap(\.cpuSecondsPer1000))
        megabytesPerSecond = median(ok.compactMap(\.megabytesPerSecond))
        peakRSSKiB = median(ok.compactMap { $0.peakRSSKiB.map(Double.init) })
        rssPerStreamKiB = median(ok.compactMap(\.rssPerStreamKiB))
        meanInFlight = median(ok.compactMap(\.meanInFlight))
        seconds = median(ok.compactMap(\.seconds))
        let connections = ok.compactMap(\.connectionsOpened)
        connectionsOpened = median(connections.map(Double.init))
        fewestConnections = connections.min()
        mostConnections = connections.max()
    }
}
