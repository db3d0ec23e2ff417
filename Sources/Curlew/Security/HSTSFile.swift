import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// curl's HSTS cache format (`CURLOPT_HSTS`): one entry per line, `host "YYYYMMDD HH:MM:SS"`
/// in UTC, the host dot-prefixed when the entry covers subdomains, `"unlimited"` for an entry
/// that never lapses, and `#` comment lines.
enum HSTSFile {
    /// The entries of a file's bytes; a line that is not an entry fails with
    /// ``CurlewError/Kind/fileSystem`` naming its number (a tampered file is refused, not
    /// half read: a dropped entry would silently allow plain HTTP again).
    static func entries(in data: Data, from url: URL) throws(CurlewError) -> [HSTSEntry] {
        guard let text = String(data: data, encoding: .utf8) else {
            throw CurlewError(.fileSystem, "the HSTS file is not UTF-8 text", url: url)
        }
        var entries: [HSTSEntry] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let entry = entry(fromLine: line) else {
                throw CurlewError(
                    .fileSystem,
                    "line \(index + 1) of the HSTS file is not '[.]host \"YYYYMMDD HH:MM:SS\"' or '[.]host \"unlimited\"'",
                    url: url)
            }
            entries.append(entry)
        }
        return entries
    }

    /// The file's text for `entries`, lapsed ones left out, sorted by host.
    static func contents(of entries: [HSTSEntry], now: Date) -> Data {
        var text = "# HSTS cache (curl's format: https://curl.se/docs/hsts.html), written by Curlew.\n"
        for entry in entries.sorted(by: { $0.host < $1.host }) where !entry.hasExpired(at: now) {
            let stamp = entry.expires.map(format) ?? "unlimited"
            text += "\(entry.includesSubdomains ? "." : "")\(entry.host) \"\(stamp)\"\n"
        }
        return Data(text.utf8)
    }

    static func entry(fromLine line: String) -> HSTSEntry? {
        guard let space = line.firstIndex(where: { $0 == " " || $0 == "\t" }) else { return nil }
        var host = String(line[..<space])
        var stamp = line[space...].trimmingCharacters(in: .whitespaces)
        if stamp.count >= 2, stamp.hasPrefix("\""), stamp.hasSuffix("\"") { stamp = String(stamp.dropFirst().dropLast()) }
        let includesSubdomains = host.hasPrefix(".")
        if includesSubdomains { host.removeFirst() }
        guard let name = HSTSEntry.normalizedHost(host) else { return nil }
        if stamp == "unlimited" { return HSTSEntry(normalizedHost: name, includesSubdomains: includesSubdomains, expires: nil) }
        guard let expires = parse(stamp) else { return nil }
        return HSTSEntry(normalizedHost: name, includesSubdomains: includesSubdomains, expires: expires)
    }

    /// `YYYYMMDD HH:MM:SS`, UTC.
    static func format(_ date: Date) -> String {
        var seconds = time_t(max(0, min(date.timeIntervalSince1970.rounded(.down), 253_402_300_799)))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday)) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
    }

    /// The date of a `YYYYMMDD HH:MM:SS` stamp, or nil.
    static func parse(_ stamp: String) -> Date? {
        let bytes = Array(stamp.utf8)
        guard bytes.count == 17, bytes[8] == UInt8(ascii: " "), bytes[11] == UInt8(ascii: ":"), bytes[14] == UInt8(ascii: ":")
        else { return nil }
        func number(_ range: Range<Int>) -> Int32? {
            var value: Int32 = 0
            for byte in bytes[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int32(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8),
            let hour = number(9..<11), let minute = number(12..<14), let second = number(15..<17),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = month - 1
        parts.tm_mday = day
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_sec = second
        let seconds = timegm(&parts)
        guard seconds != -1 || (year == 1969) else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }
}
