import CCurlShims
import Foundation

/// The loop's record of the sockets libcurl holds for the session, behind
/// ``Session/connectionPool()`` and ``Session/closeIdleConnections()``.
///
/// libcurl 7.88 cannot list its connection pool, so every easy handle of the session opens and
/// closes its sockets through ``open`` and ``close`` (`CURLOPT_OPENSOCKETFUNCTION` and
/// `CURLOPT_CLOSESOCKETFUNCTION`), whose data is this ledger: it lives as long as the loop, and
/// so outlives every connection (libcurl closes a connection with the callback of the handle
/// that opened it, which may be long gone; the last close comes from `curl_multi_cleanup`).
/// The callbacks run once per connection, never per request.
///
/// A connection gets its label (the origin and HTTP version) when the first transfer on it
/// finishes (``label(connectionOf:url:)``), which is when it can first be idle. Whether it is
/// busy is found only when a snapshot is asked for, from the local and remote ports the running
/// transfers report. Closing idle connections shuts their sockets down (`shutdown(SHUT_RDWR)`):
/// the server sees the close at once, and libcurl, which checks an idle connection before it
/// reuses one, finds it dead and closes it (through ``close``) instead of reusing it.
///
/// Used by the loop thread only, like ``CurlLoopThreadState``.
final class ConnectionLedger {
    /// What a connection carried when its first transfer finished.
    struct Label {
        var host: String?
        var port: Int?
        var usesTLS: Bool?
        var httpVersion: HTTPVersion
    }

    struct Entry {
        /// The socket's file (`fstat`), to tell it from another socket given the same descriptor.
        var device: UInt64
        var inode: UInt64
        var label: Label?
        /// Shut down by ``closeIdle(_:)``: dead, waiting for libcurl to close it.
        var isShutDown = false
    }

    /// A running transfer's connection, as libcurl reports it while it runs.
    struct Use {
        var localPort: Int
        var remotePort: Int
        var remoteAddress: String
        var onUnixSocket: Bool
        var label: Label
    }

    @exclusivity(unchecked) private(set) var entries: [Int32: Entry] = [:]
    /// How many entries have no label yet: while there are none, a finished transfer costs one
    /// comparison here.
    @exclusivity(unchecked) private(set) var unlabelledCount = 0

    /// The pointer the callbacks get (`CURLOPT_OPENSOCKETDATA`, `CURLOPT_CLOSESOCKETDATA`).
    var callbackData: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// `CURLOPT_OPENSOCKETFUNCTION`: opens the socket libcurl asks for (close-on-exec) and records it.
    static let open: curl_opensocket_callback = { data, _, address in
        guard let data, let address else { return -1 }
        let socket = curlew_socket_open(address.pointee.family, address.pointee.socktype, address.pointee.protocol)
        guard socket >= 0 else { return -1 }
        Unmanaged<ConnectionLedger>.fromOpaque(data)._withUnsafeGuaranteedRef { $0.opened(socket) }
        return socket
    }

    /// `CURLOPT_CLOSESOCKETFUNCTION`: forgets the socket and closes it.
    static let close: curl_closesocket_callback = { data, socket in
        if let data {
            Unmanaged<ConnectionLedger>.fromOpaque(data)._withUnsafeGuaranteedRef { $0.forget(socket) }
        }
        return curlew_socket_close(socket)
    }

    private func opened(_ socket: Int32) {
        var device: UInt64 = 0
        var inode: UInt64 = 0
        guard curlew_socket_identity(socket, &device, &inode) == 0 else { return }
        if let old = entries[socket], old.label == nil { unlabelledCount -= 1 }
        entries[socket] = Entry(device: device, inode: inode)
        unlabelledCount += 1
    }

    private func forget(_ socket: Int32) {
        guard let entry = entries.removeValue(forKey: socket) else { return }
        if entry.label == nil { unlabelledCount -= 1 }
    }

    /// Labels the connection a finished hop ran on, if it has no label yet; `handle` is still in
    /// the multi handle (`CURLINFO_ACTIVESOCKET` finds the connection only until it is removed).
    func label(connectionOf handle: UnsafeMutableRawPointer, url: URL) {
        let socket = curlew_easy_active_socket(handle)
        guard socket >= 0, var entry = entries[socket], entry.label == nil, isSameFile(socket, entry) else { return }
        var version = 0
        _ = curlew_easy_getinfo_long(handle, CURLINFO_HTTP_VERSION, &version)
        entry.label = Self.label(of: url, httpVersion: TransferMetrics.httpVersion(curlValue: version))
        entries[socket] = entry
        unlabelledCount -= 1
    }

    /// The origin of `url` with `httpVersion`.
    static func label(of url: URL, httpVersion: HTTPVersion) -> Label {
        let scheme = url.scheme?.lowercased()
        let usesTLS = scheme.map { $0 == "https" || $0 == "wss" }
        let port = url.port ?? usesTLS.map { $0 ? 443 : 80 }
        return Label(host: url.host, port: port, usesTLS: usesTLS, httpVersion: httpVersion)
    }

    /// Whether `socket` is still the socket `entry` recorded (libcurl closes every socket it
    /// opened through ``close``; this keeps a missed close from reaching another file).
    private func isSameFile(_ socket: Int32, _ entry: Entry) -> Bool {
        var device: UInt64 = 0
        var inode: UInt64 = 0
        return curlew_socket_identity(socket, &device, &inode) == 0 && device == entry.device && inode == entry.inode
    }

    /// The pool as it is now: `uses` are the running transfers' connections, `busySockets`
    /// sockets known busy otherwise (WebSockets').
    func snapshot(uses: [Use], busySockets: Set<Int32>) -> ConnectionPoolSnapshot {
        ConnectionPoolSnapshot(connections: survey(uses: uses, busySockets: busySockets).map(\.connection))
    }

    /// Shuts down every idle connection; the connections it shut down.
    func closeIdle(uses: [Use], busySockets: Set<Int32>) -> ConnectionPoolSnapshot {
        var closed: [PooledConnection] = []
        for (socket, connection) in survey(uses: uses, busySockets: busySockets) where connection.state == .idle {
            guard curlew_socket_shutdown(socket) == 0 else { continue }
            entries[socket]?.isShutDown = true
            closed.append(connection)
        }
        return ConnectionPoolSnapshot(connections: closed)
    }

    /// Each live socket with what it is doing, sorted by origin and peer. A connection is idle
    /// only when it is connected, has finished a transfer, and no running transfer or
    /// WebSocket is on it; every doubt makes it busy or opening, which are never closed.
    private func survey(uses: [Use], busySockets: Set<Int32>) -> [(socket: Int32, connection: PooledConnection)] {
        var found: [(socket: Int32, connection: PooledConnection)] = []
        for (socket, entry) in entries where !entry.isShutDown {
            guard isSameFile(socket, entry) else {
                forget(socket)
                continue
            }
            var endpoints = curlew_socket_endpoints()
            curlew_socket_endpoints(socket, &endpoints)
            let peer = endpoints.connected != 0 ? Self.text(of: &endpoints) : nil
            let isUnix = endpoints.family == AF_UNIX
            let matches = uses.filter { use in
                if isUnix { return use.onUnixSocket }
                return endpoints.connected != 0 && use.localPort == Int(endpoints.local_port)
                    && use.remotePort == Int(endpoints.peer_port) && use.remoteAddress == peer
            }
            let label = entry.label ?? matches.first?.label
            let state: PooledConnection.State
            if !matches.isEmpty || busySockets.contains(socket) {
                state = .busy
            } else if entry.label != nil, endpoints.connected != 0 {
                state = .idle
            } else {
                state = .opening
            }
            found.append((socket, PooledConnection(
                host: label?.host, port: label?.port, usesTLS: label?.usesTLS,
                httpVersion: entry.label?.httpVersion ?? .unknown, remoteAddress: peer,
                remotePort: isUnix || endpoints.connected == 0 ? nil : Int(endpoints.peer_port),
                localPort: isUnix || endpoints.local_port == 0 ? nil : Int(endpoints.local_port),
                state: state, activeTransfers: max(matches.count, busySockets.contains(socket) ? 1 : 0))))
        }
        return found.sorted { left, right in
            let (a, b) = (left.1, right.1)
            return (a.host ?? "", a.port ?? 0, a.remoteAddress ?? "", a.remotePort ?? 0, a.localPort ?? 0)
                < (b.host ?? "", b.port ?? 0, b.remoteAddress ?? "", b.remotePort ?? 0, b.localPort ?? 0)
        }
    }

    private static func text(of endpoints: inout curlew_socket_endpoints) -> String {
        withUnsafeBytes(of: &endpoints.peer) { bytes in
            let characters = bytes.prefix { $0 != 0 }
            return String(decoding: characters, as: UTF8.self)
        }
    }
}
