import NIOCore
import Synchronization

/// Counters and open connections shared by a ``TestServer`` and its connection handlers.
///
/// Every member is guarded by a `Mutex`, so the state may be touched from any event loop or task.
final class ServerState: Sendable {
    private struct Counters {
        var requestsByPath: [String: Int] = [:]
        var totalRequests = 0
        var connections = 0
        var openChannels: [ObjectIdentifier: any Channel] = [:]
        var peakOpenChannels = 0
        var peers: [(address: String, port: Int)] = []
        var isShutDown = false
    }

    private let counters = Mutex(Counters())
    /// The Digest nonces issued and the `Authorization` fields received (see ``DigestAuthRoutes``).
    let digestNonces = DigestNonceStore()
    /// The names `/dns-query` answers for, and the queries it received.
    let dnsZone = DNSZone()

    /// Records a newly accepted connection. Returns `false` when the server is shutting down and
    /// the connection must be refused.
    func connectionAccepted(_ channel: any Channel) -> Bool {
        counters.withLock { state in
            guard !state.isShutDown else { return false }
            state.connections += 1
            if let peer = channel.remoteAddress {
                state.peers.append((peer.ipAddress ?? "\(peer)", peer.port ?? 0))
            }
            state.openChannels[ObjectIdentifier(channel)] = channel
            state.peakOpenChannels = max(state.peakOpenChannels, state.openChannels.count)
            return true
        }
    }

    /// Forgets a connection once it has closed.
    func connectionClosed(_ channel: any Channel) {
        counters.withLock { state in
            state.openChannels[ObjectIdentifier(channel)] = nil
        }
    }

    /// Counts one request for `path` (the path without its query).
    func requestReceived(path: String) {
        counters.withLock { state in
            state.requestsByPath[path, default: 0] += 1
            state.totalRequests += 1
        }
    }

    /// How many requests arrived for `path` so far.
    func requestCount(path: String) -> Int {
        counters.withLock { $0.requestsByPath[path] ?? 0 }
    }

    /// How many requests arrived so far, on any path.
    var totalRequestCount: Int {
        counters.withLock { $0.totalRequests }
    }

    /// How many TCP connections were accepted so far.
    var connectionCount: Int {
        counters.withLock { $0.connections }
    }

    /// The client's address and port of each accepted connection, in the order accepted.
    var connectionPeers: [(address: String, port: Int)] {
        counters.withLock { $0.peers }
    }

    /// How many accepted connections are still open.
    var openConnectionCount: Int {
        counters.withLock { $0.openChannels.count }
    }

    /// The most connections that were open at once so far.
    var peakOpenConnectionCount: Int {
        counters.withLock { $0.peakOpenChannels }
    }

    /// Marks the server as shut down and hands back every connection still open, to be closed.
    func beginShutdown() -> [any Channel] {
        counters.withLock { state in
            state.isShutDown = true
            let channels = Array(state.openChannels.values)
            state.openChannels.removeAll()
            return channels
        }
    }
}
