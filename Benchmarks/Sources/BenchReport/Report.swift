import BenchSupport

/// Everything one run produced, summarized: medians per scenario and client, target
/// ratios, Curlew's ratio to each peer, and callgrind counts.
struct Report: Codable, Sendable {
    /// Facts about the run: date, machine, versions, counts.
    var meta: [String: String]
    /// scenario → client → medians.
    var medians: [String: [String: ResultSummary]]
    /// Each target of issue 5 with Curlew's value.
    var targets: [TargetOutcome]
    /// Instructions per request under callgrind, by client.
    var callgrind: [CallgrindResult]
    /// Every raw result line of the run.
    var runs: [BenchResult]

    /// A target and how the run measured against it.
    struct TargetOutcome: Codable, Sendable {
        var target: Target
        /// Curlew's value (a ratio to the peer, or the absolute figure).
        var value: Double?
        /// The same for Curlew with its tasks on `Session.taskExecutor`, where measured.
        var executorValue: Double?
        /// "met", "missed", or "not measured".
        var verdict: String
    }

    /// The clients in the order the tables show them.
    static let clientOrder = ["curlew", "curlew-exec", "rawcurl", "wrk", "curl", "ahc", "urlsession"]
    /// The scenarios in issue 5's order.
    static let scenarioOrder = Scenario.allCases.map(\.rawValue)

    init(meta: [String: String], results: [BenchResult], callgrind: [CallgrindResult]) {
        self.meta = meta
        self.runs = results
        self.callgrind = callgrind
        var grouped: [String: [String: [BenchResult]]] = [:]
        for result in results { grouped[result.scenario, default: [:]][result.client, default: []].append(result) }
        medians = grouped.mapValues { $0.mapValues(ResultSummary.init) }
        targets = []
        for target in Target.all {
            let value = ratio(target.scenario, target.metric, "curlew", target.peer)
            let verdict: String
            if let value {
                verdict = (target.atLeast ? value >= target.bound : value <= target.bound) ? "met" : "missed"
            } else {
                verdict = "not measured"
            }
            let executorValue = ratio(target.scenario, target.metric, "curlew-exec", target.peer)
            targets.append(TargetOutcome(target: target, value: value, executorValue: executorValue, verdict: verdict))
        }
    }

    /// `client`'s median divided by `peer`'s, or `client`'s own value when `peer` is nil.
    func ratio(_ scenario: String, _ metric: Target.Metric, _ client: String, _ peer: String?) -> Double? {
        let byClient = medians[scenario] ?? [:]
        guard let mine = metric.value(in: byClient[client]) else { return nil }
        guard let peer else { return mine }
        guard let theirs = metric.value(in: byClient[peer]), theirs > 0 else { return nil }
        return mine / theirs
    }

    /// The metric by which a scenario is compared between clients.
    static func headlineMetric(_ scenario: String) -> Target.Metric {
        switch scenario {
        case "small-c1", "small-c64", "h2-c64": return .reqPerSecond
        case "many-streams": return .rssPerStreamKiB
        default: return .megabytesPerSecond
        }
    }
}
