/// How long each phase of a HAR entry took, in milliseconds; -1 for a phase that did not
/// apply (no DNS lookup on a reused connection, no TLS over cleartext).
///
/// ``ssl`` is part of ``connect``, as the spec says, so the entry's time is the sum of the
/// others (those that are not -1).
public struct HARTimings: Codable, Sendable, Hashable {
    /// Waiting in a queue (for a connection).
    public var blocked: Double?
    /// Resolving the host name.
    public var dns: Double?
    /// Making the connection, TLS handshake included.
    public var connect: Double?
    /// Sending the request.
    public var send: Double
    /// Waiting for the first byte of the response.
    public var wait: Double
    /// Receiving the response.
    public var receive: Double
    /// The TLS handshake (also counted in ``connect``).
    public var ssl: Double?
    /// A comment.
    public var comment: String?

    /// Timings.
    public init(
        blocked: Double? = -1, dns: Double? = -1, connect: Double? = -1, send: Double, wait: Double, receive: Double,
        ssl: Double? = -1, comment: String? = nil
    ) {
        self.blocked = blocked
        self.dns = dns
        self.connect = connect
        self.send = send
        self.wait = wait
        self.receive = receive
        self.ssl = ssl
        self.comment = comment
    }

    /// The entry's time: the phases that applied, ``ssl`` left out (it is inside ``connect``).
    public var total: Double {
        [blocked, dns, connect, send, wait, receive].reduce(0) { sum, phase in
            guard let phase, phase >= 0 else { return sum }
            return sum + phase
        }
    }
}
