import BenchSupport

/// One target Curlew must reach: a ratio to a peer, an absolute bound, or a count.
struct Target: Codable, Sendable {
    /// What is compared, e.g. "small-c64 req/s ÷ raw C".
    var label: String
    /// Which Curlew: "curlew" (default executor) or "curlew-exec" (`Session.taskExecutor`).
    var client: String
    /// The scenario.
    var scenario: String
    /// The metric compared.
    var metric: Metric
    /// The peer Curlew is divided by, in the same round; nil for an absolute bound.
    var peer: String?
    /// The bound the value must reach.
    var bound: Double
    /// Whether the value must be at least (true) or at most (false) the bound.
    var atLeast: Bool
    /// The table the target belongs to.
    var group: Group

    /// The tables of targets, in the order the report shows them.
    enum Group: String, Codable, Sendable, CaseIterable {
        case issue16 = "issue 16"
        case noRegression = "issue 16, no regression"
        case issue5 = "issue 5"
    }

    /// A figure of a result line, or a deterministic count.
    enum Metric: String, Codable, Sendable {
        case reqPerSecond = "req_per_s"
        case megabytesPerSecond = "mb_per_s"
        case peakRSSMiB = "peak_rss_mib"
        case rssPerStreamKiB = "rss_per_stream_kib"
        case instructionsPerRequest = "instructions_per_request"
        case syscallsPerRequest = "syscalls_per_request"

        /// Whether the metric is a deterministic count (callgrind, strace), not a round's figure.
        var isCount: Bool { self == .instructionsPerRequest || self == .syscallsPerRequest }

        /// The metric's value in one successful result line; nil for counts and failed runs.
        func value(in result: BenchResult) -> Double? {
            guard result.status == "ok" else { return nil }
            switch self {
            case .reqPerSecond: return result.reqPerSecond
            case .megabytesPerSecond: return result.megabytesPerSecond
            case .peakRSSMiB: return result.peakRSSKiB.map { Double($0) / 1024 }
            case .rssPerStreamKiB: return result.rssPerStreamKiB
            case .instructionsPerRequest, .syscallsPerRequest: return nil
            }
        }
    }

    private static func ratio(
        _ label: String, _ client: String, _ scenario: String, _ metric: Metric, _ peer: String,
        _ bound: Double, _ group: Group = .issue16
    ) -> Target {
        Target(label: label, client: client, scenario: scenario, metric: metric, peer: peer,
               bound: bound, atLeast: true, group: group)
    }

    private static func atMost(
        _ label: String, _ client: String, _ scenario: String, _ metric: Metric, _ bound: Double,
        _ group: Group
    ) -> Target {
        Target(label: label, client: client, scenario: scenario, metric: metric, peer: nil,
               bound: bound, atLeast: false, group: group)
    }

    /// Issue 16's targets, its no-regression bounds, then the targets of issue 5 it does not
    /// restate.
    static let all: [Target] = [
        ratio("small-c1 req/s ÷ raw C", "curlew", "small-c1", .reqPerSecond, "rawcurl", 0.65),
        ratio("small-c1 req/s ÷ raw C", "curlew-exec", "small-c1", .reqPerSecond, "rawcurl", 0.80),
        ratio("small-c64 req/s ÷ raw C", "curlew", "small-c64", .reqPerSecond, "rawcurl", 0.75),
        ratio("h2-c64 req/s ÷ raw C", "curlew", "h2-c64", .reqPerSecond, "rawcurl", 0.80),
        ratio("download-stream MB/s ÷ curl CLI", "curlew", "download-stream", .megabytesPerSecond, "curl", 0.90),
        ratio("download-stream MB/s ÷ curl CLI", "curlew-exec", "download-stream", .megabytesPerSecond, "curl", 0.90),
        atMost("instructions per small-c1 request (callgrind)", "curlew", "small-c1", .instructionsPerRequest,
               100_000, .issue16),
        atMost("instructions per small-c1 request (callgrind)", "curlew-exec", "small-c1",
               .instructionsPerRequest, 100_000, .issue16),
        atMost("system calls per small-c1 request (strace)", "curlew", "small-c1", .syscallsPerRequest, 7,
               .issue16),
        atMost("download-stream peak RSS (MiB)", "curlew", "download-stream", .peakRSSMiB, 64, .noRegression),
        atMost("many-streams resident KiB per stream", "curlew", "many-streams", .rssPerStreamKiB, 64,
               .noRegression),
        ratio("upload MB/s ÷ curl CLI", "curlew", "upload", .megabytesPerSecond, "curl", 0.95, .noRegression),
        ratio("small-c64 req/s ÷ URLSession", "curlew", "small-c64", .reqPerSecond, "urlsession", 5, .issue5),
        ratio("small-c1 req/s ÷ raw C", "curlew", "small-c1", .reqPerSecond, "rawcurl", 0.70, .issue5),
        ratio("h2-c64 req/s ÷ raw C", "curlew", "h2-c64", .reqPerSecond, "rawcurl", 0.75, .issue5),
        ratio("download-file MB/s ÷ curl CLI", "curlew", "download-file", .megabytesPerSecond, "curl", 0.90,
              .issue5),
    ]
}
