import Curlew

/// The `--verbose` timing waterfall: each phase of a transfer from its start (as
/// ``TransferMetrics`` measures them, cumulative), with a bar scaled to the whole.
enum Waterfall {
    static func text(_ metrics: TransferMetrics, colours: Bool) -> String {
        let phases: [(String, Duration)] = [
            ("DNS lookup", metrics.dnsLookup),
            ("connect", metrics.connect),
            ("TLS handshake", metrics.tlsHandshake),
            ("first byte", metrics.timeToFirstByte),
            ("total", metrics.total),
        ]
        let total = max(seconds(metrics.total), 1e-9)
        let width = 40
        var connection = metrics.connectionReused ? "reused connection" : "new connection"
        if let address = metrics.remoteAddress {
            connection += " to \(address)" + (metrics.remotePort.map { ":\($0)" } ?? "")
        }
        var lines = ["* \(ResponsePrinter.protocolName(metrics.httpVersion)), \(connection)"]
        var previous = 0
        for (name, duration) in phases {
            let end = min(width, Int((seconds(duration) / total * Double(width)).rounded()))
            let start = min(previous, end)
            let bar = String(repeating: " ", count: start) + String(repeating: "█", count: max(end - start, 0))
            let label = name.padding(toLength: 14, withPad: " ", startingAt: 0)
            let time = milliseconds(duration)
            let painted = colours ? "\u{1B}[36m\(bar)\u{1B}[0m" : bar
            lines.append("* \(label)\(String(repeating: " ", count: max(0, 11 - time.count)))\(time) |\(painted)")
            previous = end
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func milliseconds(_ duration: Duration) -> String {
        let value = seconds(duration) * 1000
        return String(format: "%.1f ms", value)
    }
}
