/// The connections a session's pool holds at one moment (``Session/connectionPool()``).
///
/// Lists the connections libcurl opened for the session's requests and still holds: idle
/// ones, waiting for reuse, and busy ones, carrying transfers. WebSockets' connections are
/// listed busy. Connections libcurl makes for its own lookups (``DNSOverHTTPS``) are not listed.
public struct ConnectionPoolSnapshot: Sendable, Hashable {
    /// The connections, idle and busy, ordered by origin and peer.
    public var connections: [PooledConnection]

    /// Makes a snapshot of `connections`.
    public init(connections: [PooledConnection]) {
        self.connections = connections
    }

    /// The connections waiting for reuse.
    public var idle: [PooledConnection] { connections.filter { $0.state == .idle } }
    /// The connections carrying at least one transfer.
    public var busy: [PooledConnection] { connections.filter { $0.state == .busy } }
}

/// One connection of a session's pool, as ``ConnectionPoolSnapshot`` shows it.
public struct PooledConnection: Sendable, Hashable {
    /// What a connection is doing.
    public enum State: String, Sendable, Hashable {
        /// Open and waiting for reuse: ``Session/closeIdleConnections()`` closes it.
        case idle
        /// Carrying at least one transfer (or a WebSocket).
        case busy
        /// Being opened (resolving, connecting, TLS), or open without having finished a
        /// transfer yet: neither idle nor seen busy.
        case opening
    }

    /// The host a request on it named (its URL's host), or nil before any transfer on it was seen.
    /// Through a proxy, the origin's host (``remoteAddress`` is the proxy's).
    public var host: String?
    /// The port of that request's URL, or nil with ``host``.
    public var port: Int?
    /// Whether that request was `https` (TLS to the origin), or nil with ``host``.
    public var usesTLS: Bool?
    /// The HTTP version of the last transfer that finished on it; ``HTTPVersion/unknown``
    /// before one has.
    public var httpVersion: HTTPVersion
    /// The address of the peer the socket is connected to (an IP address, or a Unix-domain
    /// socket's path); nil while it connects.
    public var remoteAddress: String?
    /// The peer's port; nil while it connects, and for a Unix-domain socket.
    public var remotePort: Int?
    /// The local port it leaves from; nil for a Unix-domain socket or before it has one.
    public var localPort: Int?
    /// What it is doing.
    public var state: State
    /// How many of the session's transfers run on it now (more than one for HTTP/2).
    public var activeTransfers: Int

    /// Makes a connection's record (for tests and stubs).
    public init(
        host: String?, port: Int?, usesTLS: Bool?, httpVersion: HTTPVersion, remoteAddress: String?,
        remotePort: Int?, localPort: Int?, state: State, activeTransfers: Int
    ) {
        self.host = host
        self.port = port
        self.usesTLS = usesTLS
        self.httpVersion = httpVersion
        self.remoteAddress = remoteAddress
        self.remotePort = remotePort
        self.localPort = localPort
        self.state = state
        self.activeTransfers = activeTransfers
    }
}
