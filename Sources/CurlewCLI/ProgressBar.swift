import Curlew
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A progress line on standard error, redrawn in place with `\r`: a bar (when the total is
/// known), the bytes so far, the rate and the time left.
final class ProgressBar {
    private var lastDrawn: ContinuousClock.Instant?
    private let clock = ContinuousClock()

    func show(_ progress: TransferProgress) {
        // At most ten redraws a second, and always the last one.
        let now = clock.now
        if let lastDrawn, lastDrawn.duration(to: now) < .milliseconds(100), !progress.isFinished { return }
        lastDrawn = now
        var line = ""
        if let total = progress.totalBytes, total > 0 {
            let fraction = min(1, Double(progress.completedBytes) / Double(total))
            let width = 24
            let filled = Int(fraction * Double(width))
            line += String(format: "%3d%% ", Int(fraction * 100))
            line += "[" + String(repeating: "█", count: filled) + String(repeating: " ", count: width - filled) + "] "
            line += Self.bytes(progress.completedBytes) + " / " + Self.bytes(total)
        } else {
            line += Self.bytes(progress.completedBytes)
        }
        line += "  " + Self.bytes(Int64(progress.bytesPerSecond)) + "/s"
        if let remaining = progress.estimatedTimeRemaining {
            line += "  ETA " + Self.clockTime(remaining)
        }
        let columns = Terminal.standardErrorColumns
        if line.count > columns - 1 { line = String(line.prefix(columns - 1)) }
        Terminal.write("\r\u{1B}[K" + line, to: STDERR_FILENO)
    }

    /// Ends the line with a summary: bytes, time and average rate.
    func finish(bytes: Int64, elapsed: Duration) {
        let seconds = max(Waterfall.seconds(elapsed), 1e-3)
        let summary = "Done. \(Self.bytes(bytes)) in \(String(format: "%.2f", seconds)) s (\(Self.bytes(Int64(Double(bytes) / seconds)))/s)"
        Terminal.write("\r\u{1B}[K" + summary + "\n", to: STDERR_FILENO)
    }

    func clear() {
        Terminal.write("\r\u{1B}[K", to: STDERR_FILENO)
    }

    static func bytes(_ count: Int64) -> String {
        let units = ["B", "kB", "MB", "GB", "TB"]
        var value = Double(count)
        var unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f", value) + " " + units[unit]
    }

    static func clockTime(_ duration: Duration) -> String {
        let total = Int(Waterfall.seconds(duration).rounded(.up))
        return String(format: "%d:%02d", total / 60, total % 60)
    }
}
