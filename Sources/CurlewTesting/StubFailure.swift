@_spi(Stubbing) import Curlew

/// A network failure a stub plays back. Each reaches the session as libcurl reports that
/// failure, through the same mapping, so the request fails with the same
/// `CurlewError.Kind` as against a real server that fails that way (and retry policies
/// treat it the same).
public enum StubFailure: Sendable, Hashable, CaseIterable {
    /// Nothing accepts connections: `CurlewError.Kind.connectionRefused`.
    case connectionRefused
    /// The host name does not resolve: `CurlewError.Kind.hostNotFound`.
    case hostNotFound
    /// No connection within the connect timeout: `CurlewError.Kind.connectTimeout` when
    /// the session (or request) sets `Timeouts.connect`, otherwise
    /// `CurlewError.Kind.totalTimeout`, as libcurl's own connect limit would.
    case connectTimeout
    /// The total timeout passed after connecting: `CurlewError.Kind.totalTimeout`.
    case totalTimeout
    /// Nothing moved for the idle timeout: `CurlewError.Kind.idleTimeout`.
    case idleTimeout
    /// The TLS handshake failed: `CurlewError.Kind.tlsFailure`.
    case tlsFailure
    /// The server reset the connection (libcurl code 56): `CurlewError.Kind.transport`,
    /// which retry policies retry as a lost connection.
    case connectionReset
    /// The server closed the connection before the declared body length arrived (libcurl code
    /// 18): `CurlewError.Kind.connectionClosedMidBody`.
    case closedMidBody
    /// The server closed the connection without a response (libcurl code 52):
    /// `CurlewError.Kind.malformedResponse`.
    case emptyReply

    var transportFailure: TransportStubFailure {
        switch self {
        case .connectionRefused: .connectionRefused
        case .hostNotFound: .hostNotFound
        case .connectTimeout: .connectTimeout
        case .totalTimeout: .totalTimeout
        case .idleTimeout: .idleTimeout
        case .tlsFailure: .tlsFailure
        case .connectionReset: .connectionReset
        case .closedMidBody: .closedMidBody
        case .emptyReply: .emptyReply
        }
    }
}
