import Curlew
import Foundation

/// `--session NAME`: cookies and the headers given on the command line, kept between runs in
/// `$XDG_CONFIG_HOME/curlew/sessions/NAME/` (`~/.config/…` without it), a folder of mode 0700
/// holding `cookies.json` (Curlew's `CookieJar` format) and `headers.json`, both 0600.
///
/// `Authorization`, `Proxy-Authorization`, `Cookie`, `Host` and `Content-*`/`If-*` headers
/// are never kept: credentials are given again each run (cookies are kept as cookies, by the
/// jar's rules, and so go only to the hosts that set them).
struct SessionStore {
    let directory: URL
    let cookies: CookieJar
    let headers: [(String, String)]

    private var cookiesFile: URL { directory.appendingPathComponent("cookies.json") }
    private var headersFile: URL { directory.appendingPathComponent("headers.json") }

    init(name: String) throws(CommandLineError) {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        guard !name.isEmpty, name.count <= 100, name.allSatisfy({ allowed.contains($0) }), !name.hasPrefix(".") else {
            throw CommandLineError("--session '\(name)': a name of letters, digits, '.', '_' and '-' (not starting with '.')")
        }
        directory = Self.root().appendingPathComponent(name)
        do {
            cookies = try CookieJar(contentsOf: directory.appendingPathComponent("cookies.json"))
        } catch {
            throw CommandLineError("--session '\(name)': \(error.message)")
        }
        var loaded: [(String, String)] = []
        let headersPath = directory.appendingPathComponent("headers.json").path
        if FileManager.default.fileExists(atPath: headersPath) {
            guard let data = FileManager.default.contents(atPath: headersPath),
                let pairs = try? JSONDecoder().decode([[String]].self, from: data),
                pairs.allSatisfy({ $0.count == 2 })
            else {
                throw CommandLineError("--session '\(name)': \(headersPath) is not a session headers file")
            }
            loaded = pairs.map { ($0[0], $0[1]) }.filter { Self.keeps($0.0) }
        }
        headers = loaded
    }

    static func root() -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let configuration = environment["XDG_CONFIG_HOME"], configuration.hasPrefix("/") {
            return URL(fileURLWithPath: configuration).appendingPathComponent("curlew/sessions")
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".config/curlew/sessions")
    }

    /// Whether a header may be kept in the session file.
    static func keeps(_ name: String) -> Bool {
        let lower = name.lowercased()
        let never: Set<String> = ["authorization", "proxy-authorization", "cookie", "host"]
        return !never.contains(lower) && !lower.hasPrefix("content-") && !lower.hasPrefix("if-")
    }

    /// Writes the jar and the headers: the session's, with this run's (by name) over them.
    func save(headers given: [(name: String, value: String)]) throws(CommandLineError) {
        try PrivateFileWriter.makeDirectory(directory)
        do {
            try cookies.save(to: cookiesFile, includingSessionCookies: true)
        } catch {
            throw CommandLineError("cannot save the session's cookies: \(error.message)")
        }
        let kept = given.filter { Self.keeps($0.name) }
        var merged = headers.filter { old in !kept.contains { $0.name.lowercased() == old.0.lowercased() } }
        merged += kept.map { ($0.name, $0.value) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .withoutEscapingSlashes]
        let data = (try? encoder.encode(merged.map { [$0.0, $0.1] })) ?? Data("[]".utf8)
        try PrivateFileWriter.write(data, to: headersFile)
    }
}
