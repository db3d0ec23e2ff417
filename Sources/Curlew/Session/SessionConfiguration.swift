import Foundation
import HTTPTypes
import Logging

/// Settings shared by every request of a ``Session``. Requests may override some of them
/// through ``RequestOptions``.
public struct SessionConfiguration: Sendable {
    /// Connect, total and idle timeouts; each set limit must be positive (see ``Timeouts``).
    public var timeouts: Timeouts = .default
    /// How connections are made and kept: DNS overrides, IPv4/IPv6, the happy-eyeballs
    /// delay, the DNS cache, connection age limits and the local interface and ports. All
    /// off by default; see ``NetworkControls``.
    public var network: NetworkControls = .default
    /// How redirects are followed.
    public var redirectPolicy: RedirectPolicy = .default
    /// The largest body collected in memory (by `data()`, `decode`, …); past it the request
    /// fails with ``CurlewError/Kind/bodyTooLarge``. Streams and downloads are not limited.
    /// Zero allows only empty bodies; a negative size fails every request with
    /// ``CurlewError/Kind/invalidRequest``.
    public var maximumBodySize: Int = 128 << 20
    /// Limits on how much a compressed body may expand.
    public var decompressionLimit: DecompressionLimit = .default
    /// Whether to advertise and transparently decode gzip, deflate, br and zstd.
    public var automaticDecompression = true
    /// The most connections to one host; 0 is unlimited. Extra requests queue.
    public var maximumConnectionsPerHost = 0
    /// The most connections in total; 0 is unlimited. Extra requests queue.
    public var maximumTotalConnections = 0
    /// How many idle connections the session keeps for reuse.
    public var maximumIdleConnections = 64
    /// The HTTP version to ask for.
    public var httpVersion: HTTPVersionPreference = .http2OverTLS
    /// How servers are trusted, per host: certificate authorities, pins, fingerprints,
    /// custom evaluation, the minimum TLS version and client certificates.
    public var trust: TrustConfiguration = .default
    /// The client certificate presented to every server that asks for one, unless its host has
    /// a policy of its own in ``TrustConfiguration/hosts``: the certificate of
    /// ``trust``'s default policy, as ``TrustPolicy/clientCertificate(_:)`` sets it.
    ///
    /// ```swift
    /// configuration.clientCertificate = .pem(certificateFile: "/etc/svc/client.pem", keyFile: "/etc/svc/client.key")
    /// ```
    ///
    /// A host with its own policy presents that policy's certificate (or none). A connection
    /// made with a certificate is only reused by requests that present the same one.
    public var clientCertificate: ClientCertificate? {
        get { trust.defaultPolicy.clientCertificate }
        set { trust.defaultPolicy = trust.defaultPolicy.clientCertificate(newValue) }
    }
    /// Whether requests go through a proxy. The default, ``ProxyConfiguration/environment``,
    /// uses the proxy the environment names, as curl does, but never for loopback hosts; set
    /// ``ProxyConfiguration/direct`` to ignore the environment.
    public var proxy: ProxyConfiguration = .environment
    /// Chooses the proxy of each request and redirect hop from its URL, as a PAC file does;
    /// while set, ``proxy`` is not used (a request's own ``RequestOptions/proxy`` still wins).
    /// Asked on the session's thread for every hop, so a redirect to another host never keeps
    /// the first host's proxy or its credentials. Nil (the default) uses ``proxy``.
    public var proxySelector: ProxySelector?
    /// Headers added to every request that does not set them itself. A field here wins over
    /// ``userAgent`` and ``acceptLanguage``.
    public var defaultHeaders: HTTPFields = HTTPFields()
    /// The `User-Agent` sent unless a request or ``defaultHeaders`` sets its own; nil sends
    /// none. The default, ``defaultUserAgent``, names Curlew, its version, the system and its
    /// kernel release.
    public var userAgent: String? = SessionConfiguration.defaultUserAgent
    /// The `Accept-Language` sent unless a request or ``defaultHeaders`` sets its own; nil
    /// sends none. The default, ``defaultAcceptLanguage``, lists the process's languages.
    public var acceptLanguage: String? = SessionConfiguration.defaultAcceptLanguage
    /// The shortest interval between two progress events of one transfer.
    public var progressInterval: Duration = .milliseconds(100)
    /// How many bytes a streamed body (`bytes`) buffers before the transfer is paused.
    public var streamBufferSize = 1 << 20
    /// Where Curlew logs; nothing is logged when nil.
    public var logger: Logger?
    /// Where cookies are kept: they are sent and stored at every redirect hop. Nil (the
    /// default) disables cookies. One storage may be shared by several sessions. Set a
    /// ``CookieJar``, or your own ``CookieStorage`` (a database, say).
    public var cookieStorage: (any CookieStorage)?
    /// Credentials for HTTP authentication by origin (scheme, host and port), for requests
    /// that bring none of their own; each goes only to its own origin, also across redirects.
    public var httpCredentials = HTTPCredentialStore()
    /// Whether requests with a body ask `Expect: 100-continue` first; see ``ExpectContinue``
    /// for why the default is ``ExpectContinue/never``.
    public var expectContinue: ExpectContinue = .never
    /// Whether every request is validated as if `validate()` had been called on it: status
    /// 200..<300 and, when the request has an `Accept` header, a matching `Content-Type`
    /// (HTTPTransport's `useDefaultValidation`). Off by default: like Alamofire, Curlew
    /// validates only when asked.
    ///
    /// The default checks run after the request's own `validate(…)` checks, which still apply,
    /// so a more specific check names the failure first. A request opts out with
    /// ``Request/skipDefaultValidation()``. Token requests made by ``OAuth2Authenticator`` are
    /// not subject to it.
    public var usesDefaultValidation = false
    /// Monitors that see what every request does (``LoggingEventMonitor`` among others), in
    /// the order they are called.
    public var eventMonitors: [any EventMonitor] = []
    /// A trace of every request's wire traffic (heads, libcurl's text, byte counts), to a
    /// logger and the requests' events; nil (the default) traces nothing. See ``WireTrace``.
    public var wireTrace: WireTrace?
    /// Distributed tracing of requests (swift-distributed-tracing): the tracer, and what
    /// `url.full` shows. Off while no tracer is bootstrapped.
    public var tracing = TracingConfiguration()
    /// Request metrics (swift-metrics). Off while the metrics system is the no-op default.
    public var metrics = MetricsConfiguration()
    /// A private HTTP cache (RFC 9111) for the collected and downloaded responses of this
    /// session; nil (the default) caches nothing. See ``HTTPCache`` and ``CachePolicy``.
    public var cache: HTTPCache?
    /// How long each attempt waits for a satisfied network path (see ``ReachabilityMonitor``)
    /// before it starts; past the limit it fails with ``CurlewError/Kind/notConnected``
    /// without sending anything. Nil (the default) or zero starts at once, whatever the path.
    /// Requests may override it (``RequestOptions/waitsForConnectivity``).
    public var waitsForConnectivity: Duration?
    /// The monitor that waiting for connectivity and ``OfflineRetrier`` consult; nil uses
    /// ``ReachabilityMonitor/shared()``, started on first need. When no monitor can be started,
    /// requests do not wait.
    public var reachabilityMonitor: ReachabilityMonitor?
    /// The hosts that want HTTPS only (HTTP Strict Transport Security, RFC 6797): requests and
    /// redirect hops to them go over HTTPS whatever their URL says, and verified HTTPS
    /// responses teach it new ones. Nil (the default) is HSTS off. See ``HSTSStore``.
    public var hsts: HSTSStore?
    /// Whether every request and redirect hop must use HTTPS: a plain-HTTP one (after
    /// ``hsts`` upgraded what it could) fails with ``CurlewError/Kind/unsupportedScheme``
    /// before any connection. Requests over a Unix socket are local and still allowed. Off by default.
    public var httpsOnly = false
    /// Alternative services (HTTP Alt-Svc, RFC 7838): an HTTPS origin that advertised an
    /// alternative port and protocol is reached there by later requests, and verified HTTPS
    /// responses teach the store. Nil (the default) is Alt-Svc off. See ``AlternativeServices``
    /// and ``AltSvcStore``.
    public var alternativeServices: AlternativeServices?
    /// Whether ``TransferMetrics/tls`` of HTTPS responses carries the certificates the server
    /// sent (``TLSConnectionDetails/peerCertificates``). Off by default: copying and parsing
    /// the chain costs more than the rest of the details, which every HTTPS response has.
    public var capturesPeerCertificates = false
    /// Answers every transfer in place of the network, for tests: set by `CurlewTesting`
    /// (`SessionConfiguration.stubbed(by:)`), never by applications. Nil (the default) uses
    /// libcurl.
    @_spi(Stubbing) public var transportStub: (any TransportStub)?

    /// The defaults.
    public init() {}

    /// The defaults.
    public static var `default`: SessionConfiguration { SessionConfiguration() }

    /// `Curlew/<version> (<system>; <kernel release>)`, from `uname`, such as
    /// `Curlew/0.1.0 (Linux; 6.8.0-45-generic)`. Made once per process.
    public static var defaultUserAgent: String { UserAgent.process }

    /// The process's languages with q-values, as Alamofire sends them: at most six, such as
    /// `de-DE;q=1.0, en;q=0.9`. Read once per process from `LANGUAGE`, then the first of
    /// `LC_ALL`, `LC_MESSAGES` and `LANG` (`de_DE.UTF-8` is `de-DE`); nil — no header — when
    /// the locale is `C` or `POSIX` or no language is set.
    public static var defaultAcceptLanguage: String? { AcceptLanguage.process }
}

/// Protection against decompression bombs: once a decoded body passes `minimumSize`, its
/// size may be at most `ratio` times the compressed bytes received.
public struct DecompressionLimit: Sendable, Hashable {
    /// The largest decoded-to-received ratio.
    public var ratio: Int
    /// Decoded bytes below which the ratio is not checked.
    public var minimumSize: Int

    /// Creates a limit.
    public init(ratio: Int, minimumSize: Int = 8 << 20) {
        self.ratio = ratio
        self.minimumSize = minimumSize
    }

    /// A ratio of 100 once the body passes 8 MiB.
    public static let `default` = DecompressionLimit(ratio: 100)
    /// No limit.
    public static let unlimited = DecompressionLimit(ratio: .max, minimumSize: .max)
}

/// Curlew's version.
public enum CurlewVersion {
    /// The version string used in the default `User-Agent`.
    public static let current = "0.1.0"
}
