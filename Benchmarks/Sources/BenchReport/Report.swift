import BenchSupport

/// Everything one run produced, summarized: medians per scenario and client, targets judged
/// round by round, Curlew's ratio to each peer, the rounds, and the callgrind and strace counts.
struct Report: Codable, Sendable {
    /// Facts about the run: date, commit, machine, versions, counts.
    var meta: [String: String]
    /// scenario → client → medians.
    var medians: [String: [String: ResultSummary]]
    /// Every target with Curlew's value, its rounds and the verdict.
    var targets: [TargetOutcome]
    /// Instructions per request under callgrind, by client.
    var callgrind: [CallgrindResult]
    /// System calls per request under strace, by client.
    var syscalls: [SyscallResult]
    /// Each round's load and client orders.
    var rounds: [RoundInfo]
    /// Every raw result line of the run.
    var runs: [BenchResult]

    /// A target and how the run measured against it.
    struct TargetOutcome: Codable, Sendable {
        var target: Target
        /// The median of the per-round values (or the count).
        var value: Double?
        /// The value of each round in which Curlew and the peer both succeeded, in round order
        /// (empty for counts).
        var rounds: [Double]
        /// The round each of `rounds` comes from.
        var roundNumbers: [Int]
        var verdict: Verdict

        enum CodingKeys: String, CodingKey {
            case target, value, rounds, verdict
            case roundNumbers = "round_numbers"
        }
    }

    /// The clients in the order the tables show them.
    static let clientOrder = ["curlew", "curlew-exec", "rawcurl", "wrk", "curl", "ahc", "urlsession"]
    /// The scenarios in issue 5's order.
    static let scenarioOrder = Scenario.allCases.map(\.rawValue)

    init(
        meta: [String: String], results: [BenchResult], callgrind: [CallgrindResult] = [],
        syscalls: [SyscallResult] = [], rounds: [RoundInfo] = []
    ) {
        self.meta = meta
        self.runs = results
        self.callgrind = callgrind
        self.syscalls = syscalls
        self.rounds = rounds
        var grouped: [String: [String: [BenchResult]]] = [:]
        for result in results { grouped[result.scenario, default: [:]][result.client, default: []].append(result) }
        medians = grouped.mapValues { $0.mapValues(ResultSummary.init) }
        targets = []
        targets = Target.all.map(outcome)
    }

    private func outcome(_ target: Target) -> TargetOutcome {
        switch target.metric {
        case .instructionsPerRequest:
            let count = callgrind.first { $0.client == target.client }?.instructionsPerRequest
            return TargetOutcome(target: target, value: count, rounds: [], roundNumbers: [],
                                 verdict: .byCount(count, bound: target.bound, atLeast: target.atLeast))
        case .syscallsPerRequest:
            let count = syscalls.first { $0.client == target.client }?.syscallsPerRequest
            return TargetOutcome(target: target, value: count, rounds: [], roundNumbers: [],
                                 verdict: .byCount(count, bound: target.bound, atLeast: target.atLeast))
        default:
            let paired = pairedRatios(target.scenario, target.metric, target.client, target.peer)
            let values = paired.map(\.value)
            return TargetOutcome(target: target, value: values.median, rounds: values,
                                 roundNumbers: paired.map(\.round),
                                 verdict: .judge(values, bound: target.bound, atLeast: target.atLeast))
        }
    }

    /// `client`'s successful results in `scenario`, by round. A line without a round (from a
    /// run before rounds were recorded) takes its place among the client's lines: the harness
    /// writes them round after round.
    func resultsByRound(_ scenario: String, _ client: String) -> [Int: BenchResult] {
        var byRound: [Int: BenchResult] = [:]
        var occurrence = 0
        for result in runs where result.scenario == scenario && result.client == client {
            occurrence += 1
            if result.status == "ok" { byRound[result.round ?? occurrence] = result }
        }
        return byRound
    }

    /// `client`'s value of `metric` in `scenario` divided by `peer`'s in the same round (or
    /// `client`'s own value when `peer` is nil), for each round both succeeded, in round order.
    func pairedRatios(_ scenario: String, _ metric: Target.Metric, _ client: String, _ peer: String?)
        -> [(round: Int, value: Double)]
    {
        let mine = resultsByRound(scenario, client)
        let theirs = peer.map { resultsByRound(scenario, $0) }
        var paired: [(round: Int, value: Double)] = []
        for round in mine.keys.sorted() {
            guard let value = mine[round].flatMap(metric.value(in:)) else { continue }
            guard let theirs else {
                paired.append((round, value))
                continue
            }
            guard let other = theirs[round].flatMap(metric.value(in:)), other > 0 else { continue }
            paired.append((round, value / other))
        }
        return paired
    }

    /// The median of `client`'s per-round ratios to `peer` (or of its own values).
    func ratio(_ scenario: String, _ metric: Target.Metric, _ client: String, _ peer: String?) -> Double? {
        pairedRatios(scenario, metric, client, peer).map(\.value).median
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
