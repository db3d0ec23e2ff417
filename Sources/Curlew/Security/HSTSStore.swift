import Foundation
import Synchronization

/// The hosts known to want HTTPS only (HTTP Strict Transport Security, RFC 6797): a session
/// with a store (``SessionConfiguration/hsts``) sends every request and redirect hop to such
/// a host over HTTPS, whatever its URL says, and learns hosts from the
/// `Strict-Transport-Security` headers of verified HTTPS responses.
///
/// ```swift
/// var configuration = SessionConfiguration()
/// configuration.hsts = try HSTSStore(fileURL: cacheFolder.appending(path: "hsts.txt"))
/// let session = Session(configuration: configuration)
/// ```
///
/// - In memory (``init(entries:)``) or kept in a file between runs (``init(fileURL:entries:)``):
///   the file is curl's HSTS cache format (`curl --hsts FILE` reads it too), written with mode
///   0600 into a new file that replaces the old one, and read only when it is a regular file
///   owned by this user. The store writes it from the requesting task after a response changed
///   what it knows (a new host, a removed one, `includeSubDomains` turned on or off, or an
///   expiry moved by more than a day); ``save()`` writes it at once.
/// - A header counts only over HTTPS whose certificate chain was verified (a trust policy that
///   skips chain validation, such as ``TrustPolicy/insecureNoEvaluation(reason:)`` or pins without
///   `validateChain`, teaches nothing), only for a DNS name (never an IP address), and only
///   its first `Strict-Transport-Security` field; `max-age=0` forgets the host.
/// - Upgrading keeps an explicit port other than 80 (RFC 6797 §8.3), so `http://host:8080/`
///   becomes `https://host:8080/`; requests over a Unix socket are never upgraded.
/// - The store holds at most ``maximumEntries`` hosts; past that, learning one forgets the
///   entry that lapses soonest, never an entry without expiry (a preloaded one).
///
/// A store may be shared by sessions; every method is safe from any thread.
public final class HSTSStore: Sendable {
    /// The most hosts a store holds.
    public static let maximumEntries = 10_000
    /// The largest HSTS file read: far more than ``maximumEntries`` lines take.
    static let maximumFileSize = 4 << 20

    /// The file the store reads at start and writes when it learns something; nil for memory only.
    public let fileURL: URL?

    private struct State {
        var entries: [String: HSTSEntry] = [:]
        /// Whether the file lags behind ``entries`` by something worth writing.
        var hasUnsavedChanges = false
    }

    private let state: Mutex<State>

    /// An in-memory store, preloaded with `entries`.
    public init(entries: [HSTSEntry] = []) {
        fileURL = nil
        var initial = State()
        for entry in entries { initial.entries[entry.host] = entry }
        state = Mutex(initial)
    }

    /// A store kept in `fileURL`: read now when the file exists, with `entries` added on top
    /// (and so written with the file's next save). A file that is not this user's regular file,
    /// or has a line that is not `[.]host "YYYYMMDD HH:MM:SS"` (or `"unlimited"`), fails with
    /// ``CurlewError/Kind/fileSystem`` and is left as it is.
    public init(fileURL: URL, entries: [HSTSEntry] = []) throws(CurlewError) {
        self.fileURL = fileURL
        var initial = State()
        if let data = try PrivateFile.contents(of: fileURL, what: "the HSTS file", maximumSize: Self.maximumFileSize) {
            for entry in try HSTSFile.entries(in: data, from: fileURL) { initial.entries[entry.host] = entry }
        }
        for entry in entries {
            initial.entries[entry.host] = entry
            initial.hasUnsavedChanges = true
        }
        state = Mutex(initial)
    }

    /// The entries that have not lapsed, by host.
    public var entries: [HSTSEntry] {
        let now = Date()
        return state.withLock { $0.entries.values.filter { !$0.hasExpired(at: now) } }.sorted { $0.host < $1.host }
    }

    /// Adds `entry`, or replaces the entry for its host.
    public func insert(_ entry: HSTSEntry) {
        state.withLock { state in
            state.entries[entry.host] = entry
            state.hasUnsavedChanges = true
            Self.trim(&state, keeping: entry.host, now: Date())
        }
    }

    /// Forgets `host` (a DNS name, in any case); does nothing when it is unknown.
    public func removeEntry(forHost host: String) {
        guard let name = HSTSEntry.normalizedHost(host) else { return }
        state.withLock { state in
            if state.entries.removeValue(forKey: name) != nil { state.hasUnsavedChanges = true }
        }
    }

    /// Forgets every host.
    public func removeAll() {
        state.withLock { state in
            state.hasUnsavedChanges = state.hasUnsavedChanges || !state.entries.isEmpty
            state.entries.removeAll()
        }
    }

    /// Whether a request to `host` goes over HTTPS only: an entry for it, or one with
    /// `includeSubDomains` for a domain above it, that has not lapsed.
    public func requiresHTTPS(forHost host: String) -> Bool {
        guard let name = HSTSEntry.normalizedHost(host) else { return false }
        let now = Date()
        return state.withLock { Self.matches(name, in: $0.entries, now: now) }
    }

    /// Writes the file now (with mode 0600, replacing it whole); does nothing for an
    /// in-memory store. Fails with ``CurlewError/Kind/fileSystem``.
    public func save() throws(CurlewError) {
        guard let fileURL else { return }
        let snapshot = state.withLock { state in
            state.hasUnsavedChanges = false
            return Array(state.entries.values)
        }
        do {
            try PrivateFile.save(HSTSFile.contents(of: snapshot, now: Date()), to: fileURL, what: "the HSTS file")
        } catch {
            state.withLock { $0.hasUnsavedChanges = true }
            throw error
        }
    }

    // MARK: Used by requests

    /// `url` moved to HTTPS when its host requires it, or nil: the scheme becomes `https`,
    /// an explicit port 80 goes (HTTPS's own is 443), and any other port stays.
    func upgraded(_ url: URL) -> URL? {
        guard url.scheme?.lowercased() == "http", let host = url.host, requiresHTTPS(forHost: host),
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { return nil }
        components.scheme = "https"
        if components.port == 80 { components.port = nil }
        return components.url
    }

    /// Learns from the first `Strict-Transport-Security` field of a verified HTTPS response
    /// from `host`; an invalid field, or an IP address, teaches nothing.
    func learn(fromField value: String, host: String, now: Date) {
        guard let header = HSTSHeader.parse(value), let name = HSTSEntry.normalizedHost(host) else { return }
        state.withLock { state in
            if header.maximumAgeSeconds == 0 {
                if state.entries.removeValue(forKey: name) != nil { state.hasUnsavedChanges = true }
                return
            }
            let expires = now.addingTimeInterval(TimeInterval(header.maximumAgeSeconds))
            let known = state.entries[name]
            state.entries[name] = HSTSEntry(normalizedHost: name, includesSubdomains: header.includesSubdomains, expires: expires)
            if let known, known.includesSubdomains == header.includesSubdomains,
                let before = known.expires, abs(expires.timeIntervalSince(before)) <= 86_400
            {
                return  // Nothing worth a write of the file.
            }
            state.hasUnsavedChanges = true
            if known == nil { Self.trim(&state, keeping: name, now: now) }
        }
    }

    /// Writes the file when something worth writing changed since it was last written. Called
    /// by the requesting task after a transfer; a failure leaves the change pending, for the
    /// next call or ``save()``.
    func saveIfChanged() {
        guard fileURL != nil, state.withLock({ $0.hasUnsavedChanges }) else { return }
        try? save()
    }

    // MARK: Rules

    /// Whether `name` or a domain above it with `includeSubDomains` has a live entry.
    static func matches(_ name: String, in entries: [String: HSTSEntry], now: Date) -> Bool {
        if let entry = entries[name], !entry.hasExpired(at: now) { return true }
        var rest = Substring(name)
        while let dot = rest.firstIndex(of: ".") {
            rest = rest[rest.index(after: dot)...]
            if let entry = entries[String(rest)], entry.includesSubdomains, !entry.hasExpired(at: now) { return true }
        }
        return false
    }

    /// Drops lapsed entries, then the soonest-lapsing ones, until at most ``maximumEntries``
    /// remain; never `keeping` nor an entry without expiry.
    private static func trim(_ state: inout State, keeping: String, now: Date) {
        guard state.entries.count > maximumEntries else { return }
        for (host, entry) in state.entries where entry.hasExpired(at: now) { state.entries[host] = nil }
        guard state.entries.count > maximumEntries else { return }
        let candidates = state.entries.values
            .filter { $0.host != keeping && $0.expires != nil }
            .sorted { ($0.expires ?? .distantFuture) < ($1.expires ?? .distantFuture) }
        for entry in candidates.prefix(state.entries.count - maximumEntries) { state.entries[entry.host] = nil }
    }
}
