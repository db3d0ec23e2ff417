import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Alternative services (HTTP Alt-Svc, RFC 7838) a session has learned: an HTTPS origin that
/// answered with `Alt-Svc: h2=":8443"` is reached at port 8443 over HTTP/2 by later requests
/// of every session that uses the store (``SessionConfiguration/alternativeServices``).
///
/// ```swift
/// var configuration = SessionConfiguration()
/// let store = try AltSvcStore(fileURL: cacheFolder.appending(path: "alt-svc.txt"))
/// configuration.alternativeServices = AlternativeServices(store: store)
/// let session = Session(configuration: configuration)
/// ```
///
/// - In memory (``init(entries:)``) or kept in a file between runs (``init(fileURL:entries:)``):
///   the file is curl's Alt-Svc cache format (`curl --alt-svc FILE` reads it too), written with
///   mode 0600 into a new file that replaces the old one, and read only when it is a regular file
///   owned by this user. A file with one line Curlew would not write is refused whole. The store
///   writes it from the requesting task after a response changed what it knows; ``save()``
///   writes it at once. libcurl never writes it (see docs/ARCHITECTURE.md, "Alt-Svc").
/// - A field counts only from an HTTPS response whose certificate chain was verified, and only
///   for the origin that sent it (libcurl ignores the field over plain HTTP); an alternative
///   on another host is not kept: only the port and the protocol change, and TLS checks the
///   alternative's certificate against the origin's name.
/// - An entry lives as long as the field's `ma=` says (24 hours without one), at most
///   ``maximumLifetime``; the store holds at most ``maximumEntries`` entries and
///   ``maximumAlternativesPerOrigin`` per origin.
/// - When an alternative cannot be connected to (refused, not found, or a TLS failure), the
///   origin's entries are forgotten and the request goes to the origin itself.
///
/// A store may be shared by sessions; every method is safe from any thread.
public final class AltSvcStore: Sendable {
    /// The most entries a store holds.
    public static let maximumEntries = 10_000
    /// The most alternatives kept for one origin.
    public static let maximumAlternativesPerOrigin = 8
    /// The longest an entry lives, whatever its `ma=` says: seven days, in seconds.
    public static let maximumLifetime: TimeInterval = 7 * 86_400
    /// The largest Alt-Svc file read: far more than ``maximumEntries`` lines take.
    static let maximumFileSize = 4 << 20

    /// The file the store reads at start and writes when it learns something; nil for memory only.
    public let fileURL: URL?

    private struct State {
        var origins: [AltSvcOrigin: [AltSvcEntry]] = [:]
        var count = 0
        /// Whether the file lags behind ``origins``.
        var hasUnsavedChanges = false
    }

    private let state: Mutex<State>

    /// An in-memory store, preloaded with `entries`.
    public init(entries: [AltSvcEntry] = []) {
        fileURL = nil
        var initial = State()
        let now = Date()
        for entry in entries { Self.add(entry, to: &initial, now: now) }
        state = Mutex(initial)
    }

    /// A store kept in `fileURL`: read now when the file exists, with `entries` added on top.
    /// A folder that does not exist or that this user cannot write fails with
    /// ``CurlewError/Kind/invalidRequest``; a file that is not this user's regular file, or has
    /// a line that is not an entry of curl's format on the origin's own host, fails with
    /// ``CurlewError/Kind/fileSystem`` and is left as it is.
    public init(fileURL: URL, entries: [AltSvcEntry] = []) throws(CurlewError) {
        let folder = fileURL.deletingLastPathComponent().path
        var info = stat()
        guard stat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, access(folder, W_OK | X_OK) == 0 else {
            throw CurlewError(
                .invalidRequest, "the Alt-Svc file's folder \(folder) does not exist or cannot be written by this user",
                url: fileURL)
        }
        self.fileURL = fileURL
        var initial = State()
        let now = Date()
        if let data = try PrivateFile.contents(of: fileURL, what: "the Alt-Svc file", maximumSize: Self.maximumFileSize) {
            for entry in try AltSvcFile.entries(in: data, from: fileURL, now: now) { Self.add(entry, to: &initial, now: now) }
        }
        for entry in entries {
            Self.add(entry, to: &initial, now: now)
            initial.hasUnsavedChanges = true
        }
        state = Mutex(initial)
    }

    /// The entries that have not lapsed, by origin.
    public var entries: [AltSvcEntry] {
        let now = Date()
        return state.withLock { $0.origins.values.flatMap { $0 } }
            .filter { !$0.hasExpired(at: now) }
            .sorted { ($0.originHost, $0.originPort, $0.identity) < ($1.originHost, $1.originPort, $1.identity) }
    }

    /// Adds `entry`, or replaces the one for the same origin, protocols and port.
    public func insert(_ entry: AltSvcEntry) {
        state.withLock { state in
            Self.add(entry, to: &state, now: Date())
            state.hasUnsavedChanges = true
        }
    }

    /// Forgets the alternatives of the origin `host:port`; does nothing when there are none.
    public func removeEntries(forHost host: String, port: Int = 443) {
        guard let name = AltSvcEntry.normalizedHost(host) else { return }
        forget(AltSvcOrigin(host: name, port: port))
    }

    /// Forgets every entry.
    public func removeAll() {
        state.withLock { state in
            state.hasUnsavedChanges = state.hasUnsavedChanges || state.count > 0
            state.origins.removeAll()
            state.count = 0
        }
    }

    /// Writes the file now (with mode 0600, replacing it whole); does nothing for an in-memory
    /// store. Fails with ``CurlewError/Kind/fileSystem``.
    public func save() throws(CurlewError) {
        guard let fileURL else { return }
        let snapshot = state.withLock { state in
            state.hasUnsavedChanges = false
            return state.origins.values.flatMap { $0 }
        }
        do {
            try PrivateFile.save(AltSvcFile.contents(of: snapshot, now: Date()), to: fileURL, what: "the Alt-Svc file")
        } catch {
            state.withLock { $0.hasUnsavedChanges = true }
            throw error
        }
    }

    // MARK: Used by transfers

    /// The live alternatives of `origin`.
    func alternatives(of origin: AltSvcOrigin, now: Date) -> [AltSvcEntry] {
        state.withLock { $0.origins[origin] ?? [] }.filter { !$0.hasExpired(at: now) }
    }

    /// Makes `entries` the alternatives of `origin`: what a hop to it ended with (a new field
    /// replaces what the origin said before; `clear` leaves none). Every entry is `origin`'s.
    func replace(alternativesOf origin: AltSvcOrigin, with entries: [AltSvcEntry], now: Date) {
        state.withLock { state in
            Self.remove(origin, from: &state)
            for entry in entries where entry.origin == origin { Self.add(entry, to: &state, now: now) }
            state.hasUnsavedChanges = true
        }
    }

    /// Forgets the alternatives of `origin` (one could not be reached).
    func forget(_ origin: AltSvcOrigin) {
        state.withLock { state in
            if Self.remove(origin, from: &state) { state.hasUnsavedChanges = true }
        }
    }

    /// Writes the file when something changed since it was last written. Called by the
    /// requesting task after a transfer; a failure leaves the change pending, for the next call
    /// or ``save()``.
    func saveIfChanged() {
        guard fileURL != nil, state.withLock({ $0.hasUnsavedChanges }) else { return }
        try? save()
    }

    // MARK: Rules

    @discardableResult
    private static func remove(_ origin: AltSvcOrigin, from state: inout State) -> Bool {
        guard let removed = state.origins.removeValue(forKey: origin) else { return false }
        state.count -= removed.count
        return true
    }

    /// Adds `entry` in place of the same alternative of its origin; past
    /// ``maximumAlternativesPerOrigin`` the origin's soonest-lapsing one goes, and past
    /// ``maximumEntries`` lapsed entries, then the soonest-lapsing origins, go (never `entry`'s).
    private static func add(_ entry: AltSvcEntry, to state: inout State, now: Date) {
        guard !entry.hasExpired(at: now) else { return }
        var list = state.origins[entry.origin] ?? []
        let before = list.count
        list.removeAll { $0.identity == entry.identity }
        list.append(entry)
        if list.count > maximumAlternativesPerOrigin {
            list.sort { $0.expires > $1.expires }
            list.removeLast(list.count - maximumAlternativesPerOrigin)
        }
        state.origins[entry.origin] = list
        state.count += list.count - before
        guard state.count > maximumEntries else { return }
        for (origin, entries) in state.origins {
            let live = entries.filter { !$0.hasExpired(at: now) }
            state.count -= entries.count - live.count
            state.origins[origin] = live.isEmpty ? nil : live
        }
        let candidates = state.origins
            .filter { $0.key != entry.origin }
            .map { ($0.key, $0.value.map(\.expires).max() ?? .distantPast) }
            .sorted { $0.1 < $1.1 }
        for (origin, _) in candidates {
            guard state.count > maximumEntries else { break }
            remove(origin, from: &state)
        }
    }
}
