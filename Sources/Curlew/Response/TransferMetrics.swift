/// Timings and sizes of one transfer, from libcurl's `CURLINFO_*` values.
///
/// Phase durations are measured from the start of the transfer's last hop, as libcurl does:
/// `dnsLookup` ≤ `connect` ≤ `tlsHandshake` ≤ `timeToFirstByte` ≤ `total`.
public struct TransferMetrics: Sendable, Hashable {
    /// Until name resolution finished.
    public var dnsLookup: Duration
    /// Until the TCP connection was established.
    public var connect: Duration
    /// Until the TLS handshake finished (zero for cleartext).
    public var tlsHandshake: Duration
    /// Until the first response byte arrived.
    public var timeToFirstByte: Duration
    /// The whole transfer.
    public var total: Duration
    /// Body bytes sent.
    public var bytesSent: Int64
    /// Body bytes received, as they came over the wire (before decompression).
    public var bytesReceived: Int64
    /// The address of the server, when connected.
    public var remoteAddress: String?
    /// The port of the server, when connected.
    public var remotePort: Int?
    /// The HTTP version of the response.
    public var httpVersion: HTTPVersion
    /// Whether an existing connection was reused.
    public var connectionReused: Bool
    /// Whether the response came from the session's ``HTTPCache``: nil when the session has
    /// none or the request passed it by (a stream, an unsafe method, a range).
    public var cacheStatus: CacheStatus? = nil
    /// The TLS connection of the response's last hop: version, cipher suite, ALPN protocol and
    /// (when the session captures them) the server's certificates; nil for plain HTTP and for
    /// responses that did not come from the network.
    public var tls: TLSConnectionDetails? {
        get { tlsBox?.details }
        set { tlsBox = newValue.map(TLSConnectionBox.init) }
    }
    var tlsBox: TLSConnectionBox? = nil

    /// Zero metrics, for responses that never reached the network.
    public static let zero = TransferMetrics(
        dnsLookup: .zero, connect: .zero, tlsHandshake: .zero, timeToFirstByte: .zero,
        total: .zero, bytesSent: 0, bytesReceived: 0, remoteAddress: nil, remotePort: nil,
        httpVersion: .unknown, connectionReused: false)
}

/// The HTTP version a response arrived over.
public enum HTTPVersion: String, Sendable, Hashable {
    case http1_0 = "HTTP/1.0"
    case http1_1 = "HTTP/1.1"
    case http2 = "HTTP/2"
    case http3 = "HTTP/3"
    case unknown = "unknown"
}
