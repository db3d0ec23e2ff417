import Foundation

/// curl's Alt-Svc cache format (`CURLOPT_ALTSVC`): one entry per line, nine fields separated
/// by spaces — origin ALPN, host, port; alternative ALPN, host, port; the expiry as
/// `"YYYYMMDD HH:MM:SS"` in UTC; `persist` (0 or 1); a priority (unused, written 0) — and `#`
/// comment lines.
enum AltSvcFile {
    /// What one line of a file says.
    enum Line: Equatable {
        case blank
        case entry(AltSvcEntry)
        /// A line curl would read as an entry, but for an alternative on another host, which
        /// Curlew does not keep.
        case otherHost
        case malformed
    }

    /// The entries of a store file's bytes, lapsed ones left out; a line that is not an entry
    /// Curlew keeps fails with ``CurlewError/Kind/fileSystem`` naming its number (a tampered
    /// file is refused whole, not half read).
    static func entries(in data: Data, from url: URL, now: Date) throws(CurlewError) -> [AltSvcEntry] {
        guard let text = String(data: data, encoding: .utf8) else {
            throw CurlewError(.fileSystem, "the Alt-Svc file is not UTF-8 text", url: url)
        }
        var entries: [AltSvcEntry] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            switch line(rawLine, now: now) {
            case .blank: continue
            case .entry(let entry): if !entry.hasExpired(at: now) { entries.append(entry) }
            case .otherHost:
                throw CurlewError(
                    .fileSystem,
                    "line \(index + 1) of the Alt-Svc file names an alternative on another host than its origin, which Curlew does not use",
                    url: url)
            case .malformed:
                throw CurlewError(
                    .fileSystem,
                    "line \(index + 1) of the Alt-Svc file is not 'ALPN host port ALPN host port \"YYYYMMDD HH:MM:SS\" persist priority'",
                    url: url)
            }
        }
        return entries
    }

    /// The entries a handle's file holds for `origin`, lapsed ones and every other line left
    /// out: libcurl wrote it, from what the hop's responses said.
    static func entries(in data: Data, for origin: AltSvcOrigin, now: Date) -> [AltSvcEntry] {
        let text = String(decoding: data, as: UTF8.self)
        return text.split(separator: "\n").compactMap { rawLine in
            guard case .entry(let entry) = line(rawLine, now: now), entry.origin == origin, !entry.hasExpired(at: now)
            else { return nil }
            return entry
        }
    }

    /// The file's text for `entries`, lapsed ones left out, sorted by origin.
    static func contents(of entries: [AltSvcEntry], now: Date) -> Data {
        var text = "# Alt-Svc cache (curl's format: https://curl.se/docs/alt-svc.html), written by Curlew.\n"
        let sorted = entries.sorted {
            ($0.originHost, $0.originPort, $0.identity) < ($1.originHost, $1.originPort, $1.identity)
        }
        for entry in sorted where !entry.hasExpired(at: now) {
            text += "\(entry.originProtocol.rawValue) \(entry.originHost) \(entry.originPort) "
                + "\(entry.alternativeProtocol.rawValue) \(entry.originHost) \(entry.alternativePort) "
                + "\"\(HSTSFile.format(entry.expires))\" \(entry.persists ? 1 : 0) 0\n"
        }
        return Data(text.utf8)
    }

    /// One line, read as curl writes it.
    static func line(_ rawLine: Substring, now: Date) -> Line {
        let trimmed = rawLine.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed.hasPrefix("#") { return .blank }
        let fields = trimmed.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard fields.count == 10,
            let originProtocol = AltSvcProtocol(rawValue: fields[0].lowercased()),
            let host = AltSvcEntry.normalizedHost(fields[1]),
            let originPort = port(fields[2]),
            let alternativeProtocol = AltSvcProtocol(rawValue: fields[3].lowercased()),
            let alternativeHost = AltSvcEntry.normalizedHost(fields[4]),
            let alternativePort = port(fields[5]),
            fields[6].hasPrefix("\""), fields[7].hasSuffix("\""),
            let expires = HSTSFile.parse("\(fields[6].dropFirst()) \(fields[7].dropLast())"),
            fields[8] == "0" || fields[8] == "1",
            !fields[9].isEmpty, fields[9].count <= 10, fields[9].allSatisfy(\.isASCII), fields[9].allSatisfy(\.isNumber)
        else { return .malformed }
        guard alternativeHost == host else { return .otherHost }
        return .entry(AltSvcEntry(
            host: host, originPort: originPort, originProtocol: originProtocol, alternativeProtocol: alternativeProtocol,
            alternativePort: alternativePort, expires: expires, persists: fields[8] == "1", now: now))
    }

    /// A port, 1...65535, in decimal digits.
    private static func port(_ text: String) -> Int? {
        guard !text.isEmpty, text.count <= 5, text.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(text),
            (1...65_535).contains(value)
        else { return nil }
        return value
    }
}
