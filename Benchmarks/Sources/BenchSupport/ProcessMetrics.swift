#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// CPU time and memory of the current process, from `getrusage` and `/proc/self/status`.
public enum ProcessMetrics {
    /// User plus system CPU seconds used so far by every thread of the process.
    public static func cpuSeconds() -> Double {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1_000_000 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// The peak resident set size so far (VmHWM), in KiB.
    public static func peakResidentKiB() -> Int { statusField("VmHWM:") }

    /// The current resident set size (VmRSS), in KiB.
    public static func residentKiB() -> Int { statusField("VmRSS:") }

    private static func statusField(_ name: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
            return 0
        }
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            let digits = line.dropFirst(name.count).filter(\.isNumber)
            return Int(digits) ?? 0
        }
        return 0
    }
}
