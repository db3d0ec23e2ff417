/// The session's connection pool: what it holds, and closing what is idle.
///
/// ```swift
/// let pool = await session.connectionPool()
/// for connection in pool.connections {
///     print(connection.host ?? "?", connection.httpVersion, connection.state)
/// }
/// let closed = await session.closeIdleConnections()  // After a network change, say.
/// ```
extension Session {
    /// The connections the session holds now: each one's origin, HTTP version, TLS, peer
    /// address, and whether it is idle or carries transfers.
    ///
    /// Asked of the session's thread, which answers between two turns of its work; costs the
    /// session nothing while nobody asks. Empty once the session has shut down.
    public nonisolated func connectionPool() async -> ConnectionPoolSnapshot {
        await loop.pool(closesIdle: false)
    }

    /// Closes every idle connection of the pool at once, leaving busy ones (and the transfers
    /// on them) alone; the connections it closed.
    ///
    /// The server sees each close at once; the next request to that origin opens a new
    /// connection. Use it when connections may have gone stale (the network changed, a server
    /// was replaced) instead of waiting for ``NetworkControls/maximumConnectionIdleTime``.
    /// A connection that is opening, or has not yet finished a transfer, is not idle.
    @discardableResult
    public nonisolated func closeIdleConnections() async -> ConnectionPoolSnapshot {
        await loop.pool(closesIdle: true)
    }
}
