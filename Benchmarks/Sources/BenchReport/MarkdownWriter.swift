import Foundation

/// Renders a ``Report`` as the Markdown of `results/latest.md` and `docs/benchmarks.md`.
struct MarkdownWriter {
    let report: Report

    static let descriptions: [String: String] = [
        "small-c1": "sequential GETs of 1 KiB over one keep-alive connection",
        "small-c64": "GETs of 1 KiB at concurrency 64 (HTTP/1.1)",
        "h2-c64": "GETs of 1 KiB at concurrency 64 over TLS with HTTP/2 multiplexing",
        "download-stream": "1 GiB through a streaming body API, discarded",
        "download-file": "1 GiB written to a file",
        "upload": "256 MiB PUT from a file",
        "many-streams": "concurrent slow responses (8 KiB at 1 KiB/s) on one client",
    ]

    static let names: [String: String] = [
        "curlew": "Curlew", "curlew-exec": "Curlew on Session.taskExecutor", "rawcurl": "raw libcurl C loop",
        "wrk": "wrk", "curl": "curl CLI", "ahc": "AsyncHTTPClient", "urlsession": "URLSession",
    ]

    static func name(_ client: String) -> String { names[client] ?? client }

    func render() -> String {
        var out = "# Curlew benchmarks: latest run\n\n"
        let meta = report.meta
        for key in ["date", "commit", "machine", "kernel", "versions", "mode", "counts", "nginx", "limits"] {
            if let value = meta[key] { out += "- **\(key)**: \(value)\n" }
        }
        out += "\nFigures are medians over the rounds of one run. Every ratio pairs the two clients' runs "
        out += "of the same round and is the median of those per-round ratios. MB/s are decimal "
        out += "(10^6 bytes). CPU is the client process's user+system time. \"conns\" is the number of "
        out += "connections nginx accepted from the client during its run (its `stub_status`).\n\n"
        out += targetsSection() + roundsSection() + ratiosSection() + scenarioSections() + peersSection()
        out += syscallsSection() + callgrindSection()
        return out
    }

    private func scenarioSections() -> String {
        var out = "## Medians per scenario\n\n"
        out += "\"by round\" lists the headline figure of every successful round, in round order, so that "
        out += "a bimodal scenario shows as such.\n\n"
        for scenario in Report.scenarioOrder {
            guard let byClient = report.medians[scenario] else { continue }
            out += "### \(scenario): \(Self.descriptions[scenario] ?? "")\n\n"
            let requestScenario = ["small-c1", "small-c64", "h2-c64"].contains(scenario)
            let manyStreams = scenario == "many-streams"
            if requestScenario {
                out += "| client | req/s | by round | p50 ms | p99 ms | CPU s / 1k req | peak RSS MiB | conns | ok runs | note |\n"
                out += "|---|---:|---|---:|---:|---:|---:|---:|---:|---|\n"
            } else if manyStreams {
                out += "| client | KiB per stream | by round | mean streams open | peak RSS MiB | seconds | conns | ok runs | note |\n"
                out += "|---|---:|---|---:|---:|---:|---:|---:|---|\n"
            } else {
                out += "| client | MB/s | by round | peak RSS MiB | CPU s | conns | ok runs | note |\n"
                out += "|---|---:|---|---:|---:|---:|---:|---|\n"
            }
            for client in Report.clientOrder {
                guard let s = byClient[client] else { continue }
                let runs = "\(s.okRuns)/\(s.runs)"
                let note = s.status == "ok" ? (s.note ?? "") : "\(s.status): \(s.note ?? "")"
                let rss = s.peakRSSKiB.map { fmt($0 / 1024, 1) } ?? "—"
                let rounds = byRound(scenario, client, digits: manyStreams ? 1 : 0)
                let conns = connections(s)
                out += "| \(Self.name(client)) | "
                if requestScenario {
                    out += "\(opt(s.reqPerSecond, 0)) | \(rounds) | \(opt(s.p50Milliseconds, 3)) | "
                    out += "\(opt(s.p99Milliseconds, 3)) | \(opt(s.cpuSecondsPer1000, 4)) | \(rss) | "
                } else if manyStreams {
                    out += "\(opt(s.rssPerStreamKiB, 1)) | \(rounds) | \(opt(s.meanInFlight, 0)) | \(rss) | "
                    out += "\(opt(s.seconds, 1)) | "
                } else {
                    let cpu = s.cpuSecondsPer1000.map { fmt($0 / 1000, 3) } ?? "—"
                    out += "\(opt(s.megabytesPerSecond, 0)) | \(rounds) | \(rss) | \(cpu) | "
                }
                out += "\(conns) | \(runs) | \(cell(note)) |\n"
            }
            out += "\n"
        }
        return out
    }

    /// The headline figure of each successful round of `client`, in round order.
    private func byRound(_ scenario: String, _ client: String, digits: Int) -> String {
        let metric = Report.headlineMetric(scenario)
        let values = report.pairedRatios(scenario, metric, client, nil).map { fmt($0.value, digits) }
        return values.isEmpty ? "—" : values.joined(separator: ", ")
    }

    /// The median connections opened, with the range when the rounds differ.
    private func connections(_ summary: ResultSummary) -> String {
        guard let median = summary.connectionsOpened, let low = summary.fewestConnections,
            let high = summary.mostConnections
        else { return "—" }
        return low == high ? "\(low)" : "\(fmt(median, 0)) (\(low)–\(high))"
    }

    func opt(_ value: Double?, _ digits: Int) -> String { value.map { fmt($0, digits) } ?? "—" }

    func fmt(_ value: Double, _ digits: Int = 1) -> String {
        String(format: "%.\(digits)f", value)
    }

    func cell(_ text: String) -> String {
        let flat = text.replacingOccurrences(of: "|", with: "/").replacingOccurrences(of: "\n", with: " ")
        return flat.count > 160 ? String(flat.prefix(157)) + "..." : flat
    }
}
