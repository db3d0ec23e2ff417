import CTestCompression
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// An in-process, httpbin-like HTTP/1.1 server on a random loopback port, for tests.
///
/// Requests are decoded by NIO; responses are written as raw bytes, so fault routes can send
/// anything. Keep-alive, pipelining, chunked request bodies and `Expect: 100-continue` are
/// supported, and bodies of any size stream with backpressure.
///
/// Routes (all JSON bodies are `application/json`):
/// - Echo: `/anything[/…]`, `/echo`, `/get`, `/post`, `/put`, `/patch`, `/delete` answer
///   `{"method","url","path","args","headers","body","bodyBase64","bodyLength","bodyTruncated","json"}`
///   plus `form` (and `files`) for form bodies. `/delay/{ms}` echoes after a pause.
/// - `/status/{code}[?location=]`, `/response-headers?Name=value…`, `/content-type?type=&body=`,
///   `/charset/latin1`, `/xml`, `/upload` (`{"bytes","crc32","chunked","contentLength","method"}`).
/// - Bodies: `/bytes/{n}?seed=`, `/stream-bytes/{n}?chunk=&seed=` (see ``expectedBytes(count:seed:)``),
///   `/drip?bytes=&duration=&delay=&chunks=`, `/json-lines?count=&delay=&batch=&split=1`,
///   `/sse?count=&delay=`.
/// - Encodings: `/gzip`, `/deflate`, `/brotli`, `/gzip-bomb?size=`.
/// - Redirects: `/redirect/{n}`, `/relative-redirect/{n}`, `/absolute-redirect/{n}`,
///   `/redirect-to?url=&status_code=`, `/redirect-loop`.
/// - Access: `/basic-auth/{user}/{pass}`, `/bearer`, `/cookies`, `/cookies/set?…`, `/cookies/delete?…`.
/// - Retries: `/flaky/{id}?failures=N&status=S&retry_after=T`: the first N requests to that
///   path answer S (default 503), later ones echo; both report `"attempt"`.
/// - DNS over HTTPS: `/dns-query` (GET `?dns=` or POST `application/dns-message`), answering
///   the names set with ``setDNSAddresses(_:for:)`` (see ``DNSOverHTTPSRoutes``).
/// - Faults: `/fault/close-mid-body`, `never-answer`, `slow-drip`, `stall-after-head`,
///   `reset-after-head`, `close-without-response`, `reset-without-response`, `malformed-head`,
///   `huge-headers`, `bad-content-length`, `bad-gzip`.
///
/// On any route: `X-Test-Delay-Ms: n` delays the response, `X-Test-Status: code` overrides the
/// status, and each `X-Test-Response-Header: Name: value` adds a response field.
public final class TestServer: Sendable {
    private let state: ServerState
    private let listeners: [any Channel]

    /// The TCP port the server listens on.
    public let port: Int

    /// `http://HOST:PORT`, with the host the server was started on (by default `127.0.0.1`).
    public let baseURL: URL

    /// `http://localhost:PORT`: the same server under another host name, for cross-host
    /// redirect tests.
    public let localhostBaseURL: URL

    private init(state: ServerState, listeners: [any Channel], port: Int, baseURL: URL, localhostBaseURL: URL) {
        self.state = state
        self.listeners = listeners
        self.port = port
        self.baseURL = baseURL
        self.localhostBaseURL = localhostBaseURL
    }

    /// Starts a server on `host` (a literal IP address) and a free port chosen by the system.
    ///
    /// When `host` is `127.0.0.1`, the server also listens on `::1` at the same port if it can, so
    /// that `localhost` reaches it whichever address a client tries first — unless
    /// `alsoOnIPv6Loopback` is false (for tests that need a server on IPv4 only).
    public static func start(host: String = "127.0.0.1", alsoOnIPv6Loopback: Bool = true) async throws -> TestServer {
        let state = ServerState()
        let bootstrap = makeBootstrap(state: state)
        let primary: any Channel
        do {
            primary = try await bootstrap.bind(host: host, port: 0).get()
        } catch {
            throw TestServerError("could not listen on \(host): \(error)")
        }
        guard let port = primary.localAddress?.port else {
            try? await primary.close()
            throw TestServerError("the listener on \(host) has no port")
        }
        var listeners = [primary]
        if host == "127.0.0.1", alsoOnIPv6Loopback, let secondary = try? await bootstrap.bind(host: "::1", port: port).get() {
            listeners.append(secondary)
        }
        let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        guard let baseURL = URL(string: "http://\(authority)"),
            let localhostBaseURL = URL(string: "http://localhost:\(port)")
        else {
            for listener in listeners { try? await listener.close() }
            throw TestServerError("\(host) does not form a valid URL")
        }
        return TestServer(
            state: state, listeners: listeners, port: port, baseURL: baseURL,
            localhostBaseURL: localhostBaseURL)
    }

    /// Starts a server on a TCP socket the caller has already bound to `host` and `port` and
    /// put in the listening state — for example in another network namespace, which a socket
    /// belongs to from its creation. The server owns the socket from here on and closes it.
    public static func start(listeningSocket socket: Int32, host: String, port: Int) async throws -> TestServer {
        let state = ServerState()
        let listener: any Channel
        do {
            listener = try await makeBootstrap(state: state).withBoundSocket(socket).get()
        } catch {
            close(socket)
            throw TestServerError("could not serve on the listening socket for \(host):\(port): \(error)")
        }
        let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        guard let baseURL = URL(string: "http://\(authority)") else {
            try? await listener.close()
            throw TestServerError("\(host) does not form a valid URL")
        }
        return TestServer(state: state, listeners: [listener], port: port, baseURL: baseURL, localhostBaseURL: baseURL)
    }

    /// Starts a server on a Unix-domain socket at `path` (which must not exist yet; the caller
    /// removes it afterwards). ``baseURL`` is then `http+unix://` with the percent-encoded path
    /// as its host, ``localhostBaseURL`` is `http://localhost` (for requests that name the
    /// socket in their options), and ``port`` is 0.
    public static func start(unixSocketPath path: String) async throws -> TestServer {
        let state = ServerState()
        let listener: any Channel
        do {
            listener = try await makeBootstrap(state: state).bind(unixDomainSocketPath: path).get()
        } catch {
            throw TestServerError("could not listen on the Unix socket \(path): \(error)")
        }
        guard let host = path.addingPercentEncoding(withAllowedCharacters: .alphanumerics),
            let baseURL = URL(string: "http+unix://\(host)"), let localhostBaseURL = URL(string: "http://localhost")
        else {
            try? await listener.close()
            throw TestServerError("the socket path \(path) does not form a URL")
        }
        return TestServer(state: state, listeners: [listener], port: 0, baseURL: baseURL, localhostBaseURL: localhostBaseURL)
    }

    private static func makeBootstrap(state: ServerState) -> ServerBootstrap {
        ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.backlog, value: 512)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(ChannelOptions.maxMessagesPerRead, value: 16)
            .childChannelInitializer { channel in
                guard state.connectionAccepted(channel) else {
                    return channel.close()
                }
                channel.closeFuture.whenComplete { _ in state.connectionClosed(channel) }
                return channel.eventLoop.makeCompletedFuture {
                    let decoder = HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(decoder))
                    try channel.pipeline.syncOperations.addHandler(HTTPConnectionHandler(state: state))
                }
            }
    }

    /// The URL of `pathAndQuery` (such as `/get?a=1`) on ``baseURL``.
    ///
    /// Characters not allowed in a URL are percent-encoded.
    public func url(_ pathAndQuery: String) -> URL {
        Self.join(baseURL, pathAndQuery)
    }

    /// The URL of `pathAndQuery` on ``localhostBaseURL``.
    public func localhostURL(_ pathAndQuery: String) -> URL {
        Self.join(localhostBaseURL, pathAndQuery)
    }

    private static func join(_ base: URL, _ pathAndQuery: String) -> URL {
        let suffix = pathAndQuery.hasPrefix("/") ? pathAndQuery : "/" + pathAndQuery
        if let url = URL(string: base.absoluteString + suffix) {
            return url
        }
        var allowed = CharacterSet.urlQueryAllowed
        allowed.insert("%")
        if let encoded = suffix.addingPercentEncoding(withAllowedCharacters: allowed),
            let url = URL(string: base.absoluteString + encoded)
        {
            return url
        }
        return base.appendingPathComponent(suffix)
    }

    /// Stops listening and closes every open connection (including ones that were never
    /// answered). Calling it again does nothing.
    public func shutdown() async throws {
        for listener in listeners {
            try? await listener.close()
        }
        for channel in state.beginShutdown() {
            try? await channel.close()
        }
    }

    /// How many requests arrived for `path` (the path only, without the query), so far.
    public func requestCount(path: String) -> Int {
        state.requestCount(path: path)
    }

    /// The `Authorization` fields that requests to the Digest route at `path` carried, in
    /// order; nil for a request without one (see ``DigestAuthRoutes``).
    public func authorizations(path: String) -> [String?] {
        state.digestNonces.authorizations(path: path)
    }

    /// Makes `/dns-query` (DNS over HTTPS) answer `name` with `addresses` (IPv4 ones for A
    /// queries, IPv6 ones for AAAA); an empty list makes it answer "no such name" again.
    public func setDNSAddresses(_ addresses: [String], for name: String) {
        state.dnsZone.setAddresses(addresses, for: name)
    }

    /// The questions `/dns-query` received so far, in order.
    public var dnsQueries: [DNSQueryRecord] {
        state.dnsZone.queries
    }

    /// How many requests arrived so far, on any path.
    public var totalRequestCount: Int {
        state.totalRequestCount
    }

    /// How many TCP connections the server has accepted so far. With keep-alive, several
    /// requests share one connection, so this grows slower than ``totalRequestCount``.
    public var connectionCount: Int {
        state.connectionCount
    }

    /// The client's IP address and port of each accepted TCP connection, in the order accepted
    /// (for tests of the local address and port a client binds to).
    public var connectionPeers: [(address: String, port: Int)] {
        state.connectionPeers
    }

    /// How many accepted connections are still open.
    public var openConnectionCount: Int {
        state.openConnectionCount
    }

    /// The most connections that were open at once so far (for connection-limit tests; a
    /// connection counts from its accept until its close is seen).
    public var peakOpenConnectionCount: Int {
        state.peakOpenConnectionCount
    }

    /// The bytes `/bytes/{count}?seed=S` and `/stream-bytes/{count}?seed=S` send:
    /// byte `i` is `UInt8((i + seed) % 251)`. Meant for small counts in assertions.
    public static func expectedBytes(count: Int, seed: UInt64 = 0) -> [UInt8] {
        (0..<max(0, count)).map { BytePattern.byte(at: UInt64($0), seed: seed) }
    }

    /// The byte at `position` of the `/bytes` pattern with `seed`, for checking large bodies
    /// piece by piece.
    public static func expectedByte(at position: UInt64, seed: UInt64 = 0) -> UInt8 {
        BytePattern.byte(at: position, seed: seed)
    }

    /// The zlib CRC-32 of `data`, as `/upload` reports it in `crc32`.
    public static func crc32(of data: Data) -> UInt32 {
        data.withUnsafeBytes { raw in
            UInt32(truncatingIfNeeded: CTestCompression.crc32(0, raw.bindMemory(to: Bytef.self).baseAddress, uInt(raw.count)))
        }
    }

    /// Starts a listener on `127.0.0.1` that never accepts connections and whose queue is full,
    /// so that new connection attempts hang (for connect-timeout tests). See
    /// ``UnacceptingListener``.
    ///
    /// The listener stays open until `close` is called or the returned `close` closure is
    /// released (keep the tuple alive for the duration of the test).
    public static func makeUnacceptingListener() throws -> (port: Int, close: @Sendable () -> Void) {
        let listener = try UnacceptingListener()
        return (listener.port, { listener.close() })
    }
}

/// An error starting or running a test fixture, with a message saying what went wrong.
public struct TestServerError: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    public let description: String

    /// Creates an error with `description`.
    public init(_ description: String) {
        self.description = description
    }
}
