import Foundation

/// Renders a ``Report`` as the Markdown of `results/latest.md` and `docs/benchmarks.md`.
struct MarkdownWriter {
    let report: Report

    private static let descriptions: [String: String] = [
        "small-c1": "sequential GETs of 1 KiB over one keep-alive connection",
        "small-c64": "GETs of 1 KiB at concurrency 64 (HTTP/1.1)",
        "h2-c64": "GETs of 1 KiB at concurrency 64 over TLS with HTTP/2 multiplexing",
        "download-stream": "1 GiB through a streaming body API, discarded",
        "download-file": "1 GiB written to a file",
        "upload": "256 MiB PUT from a file",
        "many-streams": "concurrent slow responses (8 KiB at 1 KiB/s) on one client",
    ]

    private static let names: [String: String] = [
        "curlew": "Curlew", "curlew-exec": "Curlew on Session.taskExecutor", "rawcurl": "raw libcurl C loop", "wrk": "wrk", "curl": "curl CLI",
        "ahc": "AsyncHTTPClient", "urlsession": "URLSession",
    ]

    func render() -> String {
        var out = "# Curlew benchmarks: latest run\n\n"
        let meta = report.meta
        for key in ["date", "machine", "kernel", "versions", "mode", "counts", "nginx"] {
            if let value = meta[key] { out += "- **\(key)**: \(value)\n" }
        }
        out += "\nMedians over the rounds of one run; every client ran every round, in rotating order.\n"
        out += "MB/s are decimal (10^6 bytes). CPU is the client process's user+system time.\n\n"
        out += targetsSection() + ratiosSection() + scenarioSections() + peersSection() + callgrindSection()
        return out
    }

    private func targetsSection() -> String {
        var out = "## Targets of issue 5\n\n"
        out += "The verdict is Curlew's as most code will use it, its tasks on the global executor. The "
        out += "next column is the same figure with the tasks on `Session.taskExecutor` (the session's "
        out += "own thread), where that was measured.\n\n"
        out += "| target | Curlew | bound | verdict | on Session.taskExecutor |\n|---|---:|---:|---|---:|\n"
        for outcome in report.targets {
            let show = { (value: Double?) in
                value.map { outcome.target.peer == nil ? fmt($0) : "\(fmt($0, 2))×" } ?? "—"
            }
            let bound = (outcome.target.atLeast ? "≥ " : "≤ ")
                + (outcome.target.peer == nil ? fmt(outcome.target.bound) : "\(fmt(outcome.target.bound, 2))×")
            out += "| \(outcome.target.label) | \(show(outcome.value)) | \(bound) | \(outcome.verdict) | "
            out += "\(show(outcome.executorValue)) |\n"
        }
        if report.medians.values.allSatisfy({ $0["curlew"]?.status != "ok" }) {
            out += "\nCurlew was not measured in this run (its client did not build or run); "
            out += "the peer figures below stand on their own.\n"
        }
        return out + "\n"
    }

    private func ratiosSection() -> String {
        ratiosTable(of: "curlew") + ratiosTable(of: "curlew-exec")
            + "For many-streams a smaller ratio is better (memory per stream). Its \"mean streams open\" "
            + "is the sum of the streams' durations over the wall time: a client that never holds all "
            + "of them at once shows a low figure there, and its memory per stream flatters it.\n\n"
    }

    private func ratiosTable(of client: String) -> String {
        let peers = ["rawcurl", "ahc", "urlsession", "curl", "wrk"]
        var out = "## \(Self.names[client] ?? client) ÷ each peer (headline metric of each scenario)\n\n| scenario | metric |"
        out += peers.map { " ÷ \(Self.names[$0] ?? $0) |" }.joined() + "\n|---|---|"
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

    private func scenarioSections() -> String {
        var out = "## Medians per scenario\n\n"
        for scenario in Report.scenarioOrder {
            guard let byClient = report.medians[scenario] else { continue }
            out += "### \(scenario): \(Self.descriptions[scenario] ?? "")\n\n"
            let requestScenario = ["small-c1", "small-c64", "h2-c64"].contains(scenario)
            let manyStreams = scenario == "many-streams"
            if requestScenario {
                out += "| client | req/s | p50 ms | p99 ms | CPU s / 1k req | peak RSS MiB | ok runs | note |\n"
                out += "|---|---:|---:|---:|---:|---:|---:|---|\n"
            } else if manyStreams {
                out += "| client | KiB per stream | mean streams open | peak RSS MiB | seconds | ok runs | note |\n"
                out += "|---|---:|---:|---:|---:|---:|---|\n"
            } else {
                out += "| client | MB/s | peak RSS MiB | CPU s | ok runs | note |\n"
                out += "|---|---:|---:|---:|---:|---|\n"
            }
            for client in Report.clientOrder {
                guard let s = byClient[client] else { continue }
                let name = Self.names[client] ?? client
                let runs = "\(s.okRuns)/\(s.runs)"
                let note = s.status == "ok" ? (s.note ?? "") : "\(s.status): \(s.note ?? "")"
                let rss = s.peakRSSKiB.map { fmt($0 / 1024, 1) } ?? "—"
                if requestScenario {
                    out += "| \(name) | \(opt(s.reqPerSecond, 0)) | \(opt(s.p50Milliseconds, 3)) | "
                    out += "\(opt(s.p99Milliseconds, 3)) | \(opt(s.cpuSecondsPer1000, 4)) | \(rss) | \(runs) | \(cell(note)) |\n"
                } else if manyStreams {
                    out += "| \(name) | \(opt(s.rssPerStreamKiB, 1)) | \(opt(s.meanInFlight, 0)) | \(rss) | "
                    out += "\(opt(s.seconds, 1)) | \(runs) | \(cell(note)) |\n"
                } else {
                    let cpu = s.cpuSecondsPer1000.map { fmt($0 / 1000, 3) } ?? "—"
                    out += "| \(name) | \(opt(s.megabytesPerSecond, 0)) | \(rss) | \(cpu) | \(runs) | \(cell(note)) |\n"
                }
            }
            out += "\n"
        }
        return out
    }

    private func peersSection() -> String {
        var out = "## Every client ÷ the ceiling (raw C for requests, curl CLI for transfers)\n\n"
        out += "| scenario | ceiling |" + Report.clientOrder.map { " \(Self.names[$0] ?? $0) |" }.joined()
        out += "\n|---|---|" + String(repeating: "---:|", count: Report.clientOrder.count) + "\n"
        for scenario in Report.scenarioOrder where scenario != "many-streams" {
            let metric = Report.headlineMetric(scenario)
            let ceiling = metric == .reqPerSecond ? "rawcurl" : "curl"
            out += "| \(scenario) | \(Self.names[ceiling] ?? ceiling) |"
            for client in Report.clientOrder {
                out += " \(report.ratio(scenario, metric, client, ceiling).map { fmt($0, 2) } ?? "—") |"
            }
            out += "\n"
        }
        return out + "\n"
    }

    private func callgrindSection() -> String {
        guard !report.callgrind.isEmpty else { return "" }
        var out = "## Instructions per request, small-c1 under callgrind\n\n"
        out += "| client | requests counted | instructions per request | note |\n|---|---:|---:|---|\n"
        for result in report.callgrind {
            out += "| \(Self.names[result.client] ?? result.client) | \(result.requests) | "
            out += "\(opt(result.instructionsPerRequest, 0)) | \(cell(result.note ?? "")) |\n"
        }
        return out + "\n"
    }

    private func opt(_ value: Double?, _ digits: Int) -> String { value.map { fmt($0, digits) } ?? "—" }

    private func fmt(_ value: Double, _ digits: Int = 1) -> String {
        String(format: "%.\(digits)f", value)
    }

    private func cell(_ text: String) -> String {
        let flat = text.replacingOccurrences(of: "|", with: "/").replacingOccurrences(of: "\n", with: " ")
        return flat.count > 160 ? String(flat.prefix(157)) + "..." : flat
    }
}
