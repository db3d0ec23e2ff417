import Logging

/// A trace of what goes over the wire, from libcurl's debug callback: the request and
/// response heads as sent and received, libcurl's informational text (connecting, reusing a
/// connection, the TLS handshake), and how many body bytes went each way.
///
/// Off by default; turn it on for a session (``SessionConfiguration/wireTrace``) or for one
/// request (``RequestOptions/wireTrace``, where ``off`` turns a session's trace off):
///
/// ```swift
/// var configuration = SessionConfiguration()
/// configuration.wireTrace = WireTrace(logger: Logger(label: "wire"))
/// ```
///
/// Each record goes to ``logger`` (one message per record at ``level``) and, as
/// ``TransferEvent/wireTrace(_:)``, to the request's `events` streams. Secrets are redacted as
/// everywhere Curlew prints a request: `Authorization`, `Proxy-Authorization`, `Cookie`,
/// `Set-Cookie` and fields named like secrets, passwords in URLs, secret query values. Body
/// bytes are never logged; with ``includesBodyBytes`` they are in the events, as they were
/// sent and received (the caller has them anyway). TLS records are counted, never shown.
///
/// The logger is called on the session's I/O thread while the transfer runs: a slow log
/// handler slows the session's transfers. Untraced requests cost nothing: the callback is set
/// on a handle only for a traced hop, and removed before the handle carries an untraced one.
public struct WireTrace: Sendable {
    /// Whether the trace is on; ``off`` is a trace that is not, for a request of a traced
    /// session.
    public var isEnabled: Bool
    /// Where the records are logged; nil logs nothing (the events still come).
    public var logger: Logger?
    /// The level of the log messages.
    public var level: Logger.Level
    /// Whether ``WireTraceRecord/bodyBytes`` carries the body bytes of the events; off by
    /// default: only the counts.
    public var includesBodyBytes: Bool

    /// A trace that is on.
    public init(logger: Logger? = nil, level: Logger.Level = .debug, includesBodyBytes: Bool = false) {
        isEnabled = true
        self.logger = logger
        self.level = level
        self.includesBodyBytes = includesBodyBytes
    }

    /// No trace, for a request whose session traces.
    public static let off: WireTrace = {
        var trace = WireTrace()
        trace.isEnabled = false
        return trace
    }()
}
