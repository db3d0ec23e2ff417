import Foundation

/// Follows the machine's network path on Linux, from the kernel's routing netlink: which
/// interfaces are up with addresses, whether a default route exists, and whether the path is
/// therefore satisfied. Alamofire's `NetworkReachabilityManager`, for Linux.
///
/// ```swift
/// let monitor = try await ReachabilityMonitor()
/// print(monitor.currentPath)                      // satisfied (IPv4 default route; …)
/// for await path in monitor.paths() {
///     print(path.isSatisfied ? "online" : "offline")
/// }
/// ```
///
/// The monitor runs one thread of its own, asleep until the kernel reports a change; it stops
/// when released or shut down. As with Alamofire's manager: do not use reachability to decide
/// whether to send a request — send it; use it to wait for the network before starting
/// (``RequestOptions/waitsForConnectivity``), to retry when the network returns
/// (``OfflineRetrier``), and to tell users that a request failed because they are offline.
public final class ReachabilityMonitor: Sendable {
    /// How a wait for a satisfied path ended.
    enum WaitOutcome: Sendable {
        case satisfied(NetworkPath)
        case timedOut(NetworkPath)
        /// The monitor stopped; nothing more will be known.
        case stopped
        case cancelled
    }

    let broadcast: PathBroadcast
    /// Nil for a monitor that tests drive by hand.
    private let runner: MonitorRunner?
    /// The network namespace the monitor watches (tests), nil for the process's own.
    let networkNamespacePath: String?

    /// Starts a monitor and returns once it knows the current path.
    ///
    /// Fails with ``CurlewError/Kind/transport`` when the kernel's routing netlink cannot be
    /// opened (some sandboxes forbid it).
    public convenience init() async throws(CurlewError) {
        try await self.init(networkNamespacePath: nil)
    }

    /// A monitor of the network namespace at `path` (such as `/run/netns/NAME`), whose thread
    /// enters that namespace before it opens its socket. For tests.
    init(networkNamespacePath path: String?) async throws(CurlewError) {
        let broadcast = PathBroadcast()
        runner = try await NetlinkMonitorLoop.start(namespacePath: path, broadcast: broadcast)
        self.broadcast = broadcast
        networkNamespacePath = path
    }

    /// A monitor without netlink whose paths the caller publishes with ``publish(_:)``. For tests.
    init(testingPath path: NetworkPath) {
        broadcast = PathBroadcast()
        runner = nil
        networkNamespacePath = nil
        broadcast.publish(path)
    }

    deinit {
        runner?.stop()
    }

    /// Publishes `path` on a monitor made with ``init(testingPath:)``.
    func publish(_ path: NetworkPath) {
        broadcast.publish(path)
    }

    private static let sharedStart = Task<Result<ReachabilityMonitor, CurlewError>, Never> {
        do throws(CurlewError) {
            return .success(try await ReachabilityMonitor())
        } catch {
            return .failure(error)
        }
    }

    /// A process-wide monitor, started on first use and never stopped; what sessions and
    /// ``OfflineRetrier``s use unless given their own (``SessionConfiguration/reachabilityMonitor``).
    public static func shared() async throws(CurlewError) -> ReachabilityMonitor {
        try await sharedStart.value.get()
    }

    // MARK: The path

    /// The path as last reported by the kernel.
    public var currentPath: NetworkPath {
        broadcast.path
            ?? NetworkPath(status: .unsatisfied, interfaces: [], hasIPv4DefaultRoute: false, hasIPv6DefaultRoute: false)
    }

    /// The current path, then every change, for as long as the stream is iterated and the
    /// monitor runs. Only the newest path the consumer has not read yet is kept, so a slow
    /// consumer skips states rather than falling behind.
    public func paths() -> AsyncStream<NetworkPath> {
        broadcast.stream()
    }

    /// Returns the path as soon as it is satisfied — at once if it is — or nil when `limit`
    /// passes first (nil waits without a limit), the monitor stops, or the task is cancelled.
    public func satisfiedPath(within limit: Duration?) async -> NetworkPath? {
        if case .satisfied(let path) = await waitForSatisfiedPath(within: limit) { return path }
        return nil
    }

    /// Waits until the path is satisfied, `limit` passes, the monitor stops, or the task is cancelled.
    func waitForSatisfiedPath(within limit: Duration?) async -> WaitOutcome {
        if let path = broadcast.path, path.isSatisfied { return .satisfied(path) }
        // Subscribed before counted as waiting: a path published from here on is seen.
        let stream = broadcast.stream()
        broadcast.beginWaiting()
        defer { broadcast.endWaiting() }
        let outcome = await withTaskGroup(of: WaitOutcome.self) { group in
            group.addTask {
                for await path in stream where path.isSatisfied { return .satisfied(path) }
                return Task.isCancelled ? .cancelled : .stopped
            }
            if let limit {
                group.addTask {
                    do {
                        try await Task.sleep(for: limit)
                        return .timedOut(self.currentPath)
                    } catch {
                        return .cancelled
                    }
                }
            }
            let first = await group.next() ?? .cancelled
            group.cancelAll()
            return first
        }
        if case .cancelled = outcome, !Task.isCancelled, let path = broadcast.path, path.isSatisfied {
            return .satisfied(path)
        }
        return outcome
    }

    // MARK: Hosts

    /// Whether `host` (a name or an IP address) can be reached from here: each address it
    /// resolves to, with the route the kernel would take to it (an `RTM_GETROUTE` query) and
    /// whether that route leaves through an interface that is up and running.
    ///
    /// Resolution and queries run on a thread of their own; a slow DNS server delays the answer.
    public func reachability(of host: String) async -> HostReachability {
        await HostRouteLookup.reachability(of: host, namespacePath: networkNamespacePath, tables: broadcast.tables)
    }

    // MARK: Stopping

    /// Stops the monitor's thread and waits for it to exit. Streams end; the current path stays
    /// the last one known.
    public func shutdown() async {
        await runner?.join()
        broadcast.finish()
    }
}
