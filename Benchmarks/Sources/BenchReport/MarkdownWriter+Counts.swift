/// The rounds (load and order), and the deterministic counts: strace and callgrind.
extension MarkdownWriter {
    func roundsSection() -> String {
        guard !report.rounds.isEmpty else { return "" }
        var out = "## Rounds\n\n"
        out += "In each round every scenario runs its clients one after the other; the order rotates by "
        out += "one place per round over the clients that run the scenario (a cyclic Latin square), so "
        out += "over a multiple of their number of rounds each client takes each place equally often. "
        out += "The load is `/proc/loadavg`, read before the round and before each client's run.\n\n"
        out += "| round | load before (1, 5, 15 min) | 1-min load before each run (min–max) | order |\n"
        out += "|---:|---|---|---|\n"
        for info in report.rounds.sorted(by: { $0.round < $1.round }) {
            let before = [info.load1m, info.load5m, info.load15m].map { opt($0, 2) }.joined(separator: ", ")
            let loads = report.runs.filter { $0.round == info.round }.compactMap(\.load1m)
            let during = loads.min().flatMap { low in loads.max().map { "\(fmt(low, 2))–\(fmt($0, 2))" } } ?? "—"
            out += "| \(info.round) | \(before) | \(during) | \(orders(info)) |\n"
        }
        return out + "\n"
    }

    /// The round's orders, scenarios with the same order named together.
    private func orders(_ info: RoundInfo) -> String {
        var groups: [(scenarios: [String], order: [String])] = []
        for scenario in Report.scenarioOrder {
            guard let order = info.orders[scenario], !order.isEmpty else { continue }
            if let index = groups.firstIndex(where: { $0.order == order }) {
                groups[index].scenarios.append(scenario)
            } else {
                groups.append(([scenario], order))
            }
        }
        return groups.map { "\($0.scenarios.joined(separator: ", ")): \($0.order.joined(separator: " → "))" }
            .joined(separator: "; ")
    }

    func syscallsSection() -> String {
        guard !report.syscalls.isEmpty else { return "" }
        var out = "## System calls per request, small-c1 under strace\n\n"
        out += "`strace -f -c` over two runs of sequential requests; the difference of the two counts "
        out += "divided by the difference of the requests cancels start-up and shutdown. "
        out += "poll counts poll and ppoll, epoll_wait counts epoll_wait and epoll_pwait.\n\n"
        let columns: [(String, [String])] = [
            ("futex", ["futex"]), ("read", ["read"]), ("write", ["write"]), ("recvfrom", ["recvfrom"]),
            ("sendto", ["sendto"]), ("poll", ["poll", "ppoll"]), ("epoll_wait", ["epoll_wait", "epoll_pwait"]),
        ]
        out += "| client | requests counted | system calls per request |"
        out += columns.map { " \($0.0) |" }.joined() + " note |\n|---|---:|---:|"
        out += String(repeating: "---:|", count: columns.count) + "---|\n"
        for result in report.syscalls {
            out += "| \(Self.name(result.client)) | \(result.requests) | \(opt(result.syscallsPerRequest, 2)) |"
            out += columns.map { " \(opt(result.calls($0.1), 2)) |" }.joined()
            out += " \(cell(result.note ?? "")) |\n"
        }
        return out + "\n"
    }

    func callgrindSection() -> String {
        guard !report.callgrind.isEmpty else { return "" }
        var out = "## Instructions per request, small-c1 under callgrind\n\n"
        out += "| client | requests counted | instructions per request | note |\n|---|---:|---:|---|\n"
        for result in report.callgrind {
            out += "| \(Self.name(result.client)) | \(result.requests) | "
            out += "\(opt(result.instructionsPerRequest, 0)) | \(cell(result.note ?? "")) |\n"
        }
        return out + "\n"
    }
}
