/// One target of issue 5: a ratio (or an absolute bound) that Curlew must reach.
struct Target: Codable, Sendable {
    /// What is compared, e.g. "small-c64 req/s vs raw C".
    var label: String
    /// The scenario.
    var scenario: String
    /// The metric compared.
    var metric: Metric
    /// The peer Curlew is divided by; nil for an absolute bound.
    var peer: String?
    /// The bound the value must reach.
    var bound: Double
    /// Whether the value must be at least (true) or at most (false) the bound.
    var atLeast: Bool

    /// A metric of ``ResultSummary``.
    enum Metric: String, Codable, Sendable {
        case reqPerSecond = "req_per_s"
        case megabytesPerSecond = "mb_per_s"
        case peakRSSMiB = "peak_rss_mib"
        case rssPerStreamKiB = "rss_per_stream_kib"

        /// The metric's value in a summary.
        func value(in summary: ResultSummary?) -> Double? {
            guard let summary, summary.status == "ok" else { return nil }
            switch self {
            case .reqPerSecond: return summary.reqPerSecond
            case .megabytesPerSecond: return summary.megabytesPerSecond
            case .peakRSSMiB: return summary.peakRSSKiB.map { $0 / 1024 }
            case .rssPerStreamKiB: return summary.rssPerStreamKiB
            }
        }
    }

    /// The targets of issue 5, in its order.
    static let all: [Target] = [
        Target(label: "small-c64 req/s ÷ raw C", scenario: "small-c64", metric: .reqPerSecond,
               peer: "rawcurl", bound: 0.75, atLeast: true),
        Target(label: "small-c64 req/s ÷ URLSession", scenario: "small-c64", metric: .reqPerSecond,
               peer: "urlsession", bound: 5, atLeast: true),
        Target(label: "small-c1 req/s ÷ raw C", scenario: "small-c1", metric: .reqPerSecond,
               peer: "rawcurl", bound: 0.70, atLeast: true),
        Target(label: "h2-c64 req/s ÷ raw C", scenario: "h2-c64", metric: .reqPerSecond,
               peer: "rawcurl", bound: 0.75, atLeast: true),
        Target(label: "download-stream MB/s ÷ curl CLI", scenario: "download-stream",
               metric: .megabytesPerSecond, peer: "curl", bound: 0.9, atLeast: true),
        Target(label: "download-stream peak RSS (MiB)", scenario: "download-stream",
               metric: .peakRSSMiB, peer: nil, bound: 64, atLeast: false),
        Target(label: "download-file MB/s ÷ curl CLI", scenario: "download-file",
               metric: .megabytesPerSecond, peer: "curl", bound: 0.9, atLeast: true),
        Target(label: "upload MB/s ÷ curl CLI", scenario: "upload", metric: .megabytesPerSecond,
               peer: "curl", bound: 0.95, atLeast: true),
        Target(label: "many-streams resident KiB per stream", scenario: "many-streams",
               metric: .rssPerStreamKiB, peer: nil, bound: 64, atLeast: false),
    ]
}
