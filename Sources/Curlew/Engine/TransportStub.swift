import Foundation

/// What answers a stubbed session's transfers in place of the network: the seam the
/// `CurlewTesting` module plugs into (``SessionConfiguration/transportStub``). Not API for
/// applications; use `CurlewTesting`'s `HTTPStubs`.
///
/// Only libcurl's transfer is replaced. Each hop of a transfer (Curlew follows redirects
/// itself) is configured exactly as for libcurl, its body is read through the same read
/// callback, and the answer's head lines, body pieces and end reach the transfer through the
/// same header, write and progress callbacks and the same completion, so adapters, retriers,
/// validation, serializers, the cache, cookies and redirects behave as over the network.
@_spi(Stubbing) public protocol TransportStub: Sendable {
    /// The answer to one hop: called once the request's body has been read in full.
    func answer(_ request: TransportStubRequest) async -> TransportStubAnswer
}

/// One hop's request as it would leave for the network: after every adapter, with the
/// header lines libcurl would send, in order, and the body read from its upload source.
@_spi(Stubbing) public struct TransportStubRequest: Sendable {
    /// The method, such as `GET`.
    public let method: String
    /// The URL of the hop.
    public let url: URL
    /// The header lines, `Name: value`, in the order they would be sent: `Host` first, then
    /// libcurl's `Accept` default (unless the request sets one), the request's own lines, and
    /// the body's framing (`Content-Length` or `Transfer-Encoding: chunked`).
    public let headerLines: [String]
    /// The body bytes; empty without a body.
    public let body: Data

    /// Creates a request (for stubs that replay or synthesize requests).
    public init(method: String, url: URL, headerLines: [String], body: Data) {
        self.method = method
        self.url = url
        self.headerLines = headerLines
        self.body = body
    }
}

/// The source of one hop's answer: the transfer asks for the next event only once the last
/// one was taken, so a body piece the consumer has no room for holds back the rest, as a
/// paused libcurl transfer stops reading its socket.
@_spi(Stubbing) public struct TransportStubAnswer: Sendable {
    let next: @Sendable () async -> TransportStubEvent

    /// An answer whose events `next` returns one by one, up to `.end` or a failure.
    public init(next: @escaping @Sendable () async -> TransportStubEvent) {
        self.next = next
    }
}

/// One step of a stubbed answer.
@_spi(Stubbing) public enum TransportStubEvent: Sendable {
    /// A response head: the status line, the header lines and the blank line, each ending
    /// in CRLF, as the server would send them. Interim heads (1xx) may come first.
    case head(Data)
    /// A piece of the body as the server would frame it after transfer decoding (no chunk
    /// sizes), still content-coded if the head says so.
    case body(Data)
    /// The response is complete.
    case end
    /// The connection failed as the network would make it fail.
    case failure(TransportStubFailure)
    /// The transfer fails with this error (a stub that has no answer).
    case reject(CurlewError)
}

/// A network failure a stub plays back; each is reported with the libcurl code libcurl gives
/// it, through the same mapping, so it becomes the same ``CurlewError/Kind``.
@_spi(Stubbing) public enum TransportStubFailure: Sendable, Hashable {
    /// Nothing accepts connections on the port (libcurl 7, ``CurlewError/Kind/connectionRefused``).
    case connectionRefused
    /// The host name does not resolve (libcurl 6, ``CurlewError/Kind/hostNotFound``).
    case hostNotFound
    /// No connection within the connect timeout (libcurl 28 before connecting:
    /// ``CurlewError/Kind/connectTimeout`` when the session has a connect timeout).
    case connectTimeout
    /// The total timeout passed (libcurl 28 after connecting, ``CurlewError/Kind/totalTimeout``).
    case totalTimeout
    /// Nothing moved for the idle timeout, as Curlew's loop reports it (``CurlewError/Kind/idleTimeout``).
    case idleTimeout
    /// The TLS handshake failed (libcurl 35, ``CurlewError/Kind/tlsFailure``).
    case tlsFailure
    /// The peer reset the connection (libcurl 56, ``CurlewError/Kind/transport``, retried as a
    /// lost connection).
    case connectionReset
    /// The server closed the connection before the body's declared length arrived (libcurl 18,
    /// ``CurlewError/Kind/connectionClosedMidBody``).
    case closedMidBody
    /// The server closed the connection without any response (libcurl 52,
    /// ``CurlewError/Kind/malformedResponse``).
    case emptyReply
}
