/// The targets, Curlew's ratio to each peer, and every client's ratio to the ceiling.
extension MarkdownWriter {
    func targetsSection() -> String {
        var out = "## Targets of issue 16\n\n"
        out += "Each ratio pairs Curlew with the peer's run of the same round; the figure is the median "
        out += "of those per-round ratios, followed by each round's in round order. A target is **met** "
        out += "when at least \(Verdict.minimumRounds) rounds were measured, their median meets it and at "
        out += "most one round misses it; **missed** when the median misses it and at most one round "
        out += "meets it; **within noise** otherwise; **too few rounds** with fewer than "
        out += "\(Verdict.minimumRounds) (never met). The callgrind and strace rows are counts, judged by "
        out += "the count alone: callgrind's is deterministic, strace's moves by up to about one call per "
        out += "request between runs (how often a poll or a read comes back empty depends on timing).\n\n"
        out += targetTable(.issue16)
        out += "### No regression (issue 16)\n\n" + targetTable(.noRegression)
        out += "### Targets of issue 5 not restated above\n\n" + targetTable(.issue5)
        if report.medians.values.allSatisfy({ $0["curlew"]?.status != "ok" }) {
            out += "Curlew was not measured in this run (its client did not build or run); "
            out += "the peer figures below stand on their own.\n\n"
        }
        return out
    }

    private func targetTable(_ group: Target.Group) -> String {
        var out = "| target | executor | value (each round) | bound | verdict |\n|---|---|---|---:|---|\n"
        for outcome in report.targets where outcome.target.group == group {
            let target = outcome.target
            let executor = target.client == "curlew-exec" ? "Session.taskExecutor" : "default"
            let bound = (target.atLeast ? "≥ " : "≤ ") + show(target.bound, target)
            var value = outcome.value.map { show($0, target) } ?? "—"
            if target.metric.isCount {
                if outcome.value != nil { value += " (count)" }
            } else if !outcome.rounds.isEmpty {
                let digits = target.peer == nil ? 1 : 2
                value += " (" + outcome.rounds.map { fmt($0, digits) }.joined(separator: ", ") + ")"
            }
            out += "| \(target.label) | \(executor) | \(value) | \(bound) | \(outcome.verdict.rawValue) |\n"
        }
        return out + "\n"
    }

    private func show(_ value: Double, _ target: Target) -> String {
        if target.peer != nil { return fmt(value, 2) + "×" }
        guard target.metric.isCount else { return fmt(value, 1) }
        return fmt(value, value == value.rounded() || value >= 100 ? 0 : 2)
    }

    func ratiosSection() -> String {
        ratiosTable(of: "curlew") + ratiosTable(of: "curlew-exec")
            + "For many-streams a smaller ratio is better (memory per stream). Its \"mean streams open\" "
            + "is the sum of the streams' durations over the wall time: a client that never holds all "
            + "of them at once shows a low figure there, and its memory per stream flatters it.\n\n"
    }

    private func ratiosTable(of client: String) -> String {
        let peers = ["rawcurl", "ahc", "urlsession", "curl", "wrk"]
        var out = "## \(Self.name(client)) ÷ each peer (headline metric, median of per-round ratios)\n\n"
        out += "| scenario | metric |" + peers.map { " ÷ \(Self.name($0)) |" }.joined() + "\n|---|---|"
        out += String(repeating: "---:|", count: peers.count) + "\n"
        for scenario in Report.scenarioOrder {
            let metric = Report.headlineMetric(scenario)
            out += "| \(scenario) | \(metric.rawValue) |"
            for peer in peers {
                out += " \(report.ratio(scenario, metric, client, peer).map { fmt($0, 2) + "×" } ?? "—") |"
            }
            out += "\n"
        }
        return out + "\n"
    }

    func peersSection() -> String {
        var out = "## Every client ÷ the ceiling (raw C for requests, curl CLI for transfers)\n\n"
        out += "| scenario | ceiling |" + Report.clientOrder.map { " \(Self.name($0)) |" }.joined()
        out += "\n|---|---|" + String(repeating: "---:|", count: Report.clientOrder.count) + "\n"
        for scenario in Report.scenarioOrder where scenario != "many-streams" {
            let metric = Report.headlineMetric(scenario)
            let ceiling = metric == .reqPerSecond ? "rawcurl" : "curl"
            out += "| \(scenario) | \(Self.name(ceiling)) |"
            for client in Report.clientOrder {
                out += " \(report.ratio(scenario, metric, client, ceiling).map { fmt($0, 2) } ?? "—") |"
            }
            out += "\n"
        }
        return out + "\n"
    }
}
