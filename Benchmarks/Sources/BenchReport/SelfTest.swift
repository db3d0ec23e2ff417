import BenchSupport

/// `bench-report --self-test`: the verdict rule and the per-round pairing on fixed inputs.
///
/// BenchReport is an executable of a package whose test build would compile AsyncHTTPClient in
/// debug mode, so its rules are checked here instead, by `run.sh` before every report.
enum SelfTest {
    /// Runs every check; returns the description of each that failed.
    static func failures() -> [String] {
        var failed: [String] = []
        func expect(_ what: String, _ got: Verdict, _ wanted: Verdict) {
            if got != wanted { failed.append("\(what): \(got.rawValue), expected \(wanted.rawValue)") }
        }
        let judge = { (values: [Double]) in Verdict.judge(values, bound: 0.65, atLeast: true) }
        expect("5 rounds, all meet", judge([0.70, 0.71, 0.69, 0.72, 0.68]), .met)
        expect("5 rounds, exactly 1 misses", judge([0.70, 0.71, 0.69, 0.72, 0.60]), .met)
        expect("5 rounds, 2 miss, median meets", judge([0.70, 0.71, 0.69, 0.60, 0.62]), .withinNoise)
        expect("5 rounds, 2 meet, median misses", judge([0.50, 0.52, 0.55, 0.70, 0.71]), .withinNoise)
        expect("5 rounds, exactly 1 meets", judge([0.50, 0.52, 0.55, 0.60, 0.71]), .missed)
        expect("5 rounds, none meets", judge([0.50, 0.52, 0.55, 0.60, 0.61]), .missed)
        expect("4 rounds, all meet", judge([0.70, 0.71, 0.69, 0.72]), .tooFewRounds)
        expect("4 rounds, none meets", judge([0.50, 0.51, 0.52, 0.53]), .tooFewRounds)
        expect("no round", judge([]), .notMeasured)
        expect("a round exactly on the bound meets", judge([0.65, 0.65, 0.65, 0.65, 0.64]), .met)
        expect("6 rounds, 1 misses", judge([0.70, 0.71, 0.69, 0.72, 0.68, 0.10]), .met)
        let atMost = { (values: [Double]) in Verdict.judge(values, bound: 64, atLeast: false) }
        expect("at most: 1 round above", atMost([30, 31, 29, 30, 70]), .met)
        expect("at most: 2 rounds above", atMost([30, 31, 29, 70, 71]), .withinNoise)
        expect("count under the bound", Verdict.byCount(99_000, bound: 100_000, atLeast: false), .met)
        expect("count over the bound", Verdict.byCount(100_001, bound: 100_000, atLeast: false), .missed)
        expect("no count", Verdict.byCount(nil, bound: 7, atLeast: false), .notMeasured)
        failed += pairingFailures()
        return failed
    }

    /// Per-round ratios pair the runs of the same round, whatever order the lines come in.
    private static func pairingFailures() -> [String] {
        func line(_ client: String, _ round: Int?, _ rate: Double, status: String = "ok") -> BenchResult {
            var result = BenchResult(client: client, scenario: "small-c1", status: status)
            result.round = round
            result.reqPerSecond = rate
            return result
        }
        var failed: [String] = []
        // Curlew runs at half the C loop's rate in every round; the rounds differ a lot, so
        // pairing by anything but the round (sorted values, line order) gives other ratios.
        let rates: [Double] = [1000, 3000, 2000, 5000, 4000]
        var lines: [BenchResult] = []
        for (index, rate) in rates.enumerated() { lines.append(line("rawcurl", index + 1, rate)) }
        for (index, rate) in rates.enumerated().reversed() { lines.append(line("curlew", index + 1, rate / 2)) }
        lines.append(line("curlew", 6, 100))
        lines.append(line("rawcurl", 6, 100, status: "error"))
        let report = Report(meta: [:], results: lines)
        let paired = report.pairedRatios("small-c1", .reqPerSecond, "curlew", "rawcurl")
        if paired.map(\.round) != [1, 2, 3, 4, 5] || paired.contains(where: { abs($0.value - 0.5) > 1e-9 }) {
            failed.append("pairing by round: got \(paired), expected 0.5 in rounds 1–5 (round 6 failed for the peer)")
        }
        guard let outcome = report.targets.first(where: { $0.target.client == "curlew" && $0.target.scenario == "small-c1"
            && $0.target.group == .issue16 })
        else { return failed + ["no issue-16 small-c1 target"] }
        if outcome.verdict != .missed || outcome.rounds.count != 5 {
            failed.append("small-c1 target at 0.5× over 5 rounds: \(outcome.verdict.rawValue), \(outcome.rounds)")
        }
        // Lines of a run before rounds were recorded pair by their place among the client's lines.
        let old = [line("curlew", nil, 10), line("rawcurl", nil, 40), line("curlew", nil, 30), line("rawcurl", nil, 60)]
        let oldPaired = Report(meta: [:], results: old).pairedRatios("small-c1", .reqPerSecond, "curlew", "rawcurl")
        if oldPaired.map(\.value) != [0.25, 0.5] {
            failed.append("lines without rounds: got \(oldPaired), expected 0.25 then 0.5")
        }
        return failed
    }
}
