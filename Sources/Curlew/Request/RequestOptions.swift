import Foundation

/// Per-request overrides; `nil` means "use the session's setting".
///
/// A request's options travel with it through every stage of the pipeline, and most requests
/// override nothing: the values live in one shared box, copied only when a copy of the options
/// changes (copy on write), so passing options around costs one reference count.
public struct RequestOptions: Sendable {
    /// The overrides, shared between copies until one of them changes.
    private var storage: Storage

    /// Creates options that override nothing.
    public init() { storage = Storage.empty }

    /// Timeouts; each nil field falls back to the session's.
    public var timeouts: Timeouts {
        get { storage.values.timeouts }
        set { update { $0.timeouts = newValue } }
    }
    /// How redirects are followed.
    public var redirectPolicy: RedirectPolicy? {
        get { storage.values.redirectPolicy }
        set { update { $0.redirectPolicy = newValue } }
    }
    /// The largest body collected in memory, in bytes; zero allows only empty bodies, and a
    /// negative size fails the request with ``CurlewError/Kind/invalidRequest``.
    public var maximumBodySize: Int? {
        get { storage.values.maximumBodySize }
        set { update { $0.maximumBodySize = newValue } }
    }
    /// The HTTP version to ask for.
    public var httpVersion: HTTPVersionPreference? {
        get { storage.values.httpVersion }
        set { update { $0.httpVersion = newValue } }
    }
    /// The proxy for this request instead of the session's.
    public var proxy: ProxyConfiguration? {
        get { storage.values.proxy }
        set { update { $0.proxy = newValue } }
    }
    /// Credentials for HTTP authentication, used instead of the session's
    /// ``SessionConfiguration/httpCredentials``, and only at the origin (scheme, host and port) of
    /// the request's URL: a redirect to another origin goes without them.
    public var httpCredential: HTTPCredential? {
        get { storage.values.credential }
        set { update { $0.credential = newValue } }
    }
    /// A Unix-domain socket to connect to instead of the URL's host and port, for an http or
    /// https URL (an `http+unix://` URL names its socket itself). The `Host` field still names
    /// the URL's host. Proxies never apply; a redirect stays on the socket only within the
    /// URL's origin. At most 107 bytes, and not empty.
    public var unixSocketPath: String? {
        get { storage.values.unixSocketPath }
        set { update { $0.unixSocketPath = newValue } }
    }
    /// A trace of this request's wire traffic instead of the session's
    /// ``SessionConfiguration/wireTrace``; ``WireTrace/off`` turns the session's off.
    public var wireTrace: WireTrace? {
        get { storage.values.wireTrace }
        set { update { $0.wireTrace = newValue } }
    }
    /// Whether to ask with `Expect: 100-continue` before sending the body, instead of the
    /// session's ``SessionConfiguration/expectContinue``.
    public var expectContinue: ExpectContinue? {
        get { storage.values.expectContinue }
        set { update { $0.expectContinue = newValue } }
    }
    /// How this request uses the session's ``HTTPCache``; nil is ``CachePolicy/useProtocolPolicy``.
    public var cachePolicy: CachePolicy? {
        get { storage.values.cachePolicy }
        set { update { $0.cachePolicy = newValue } }
    }
    /// What the cache stores of this request's response, instead of the cache's own
    /// ``HTTPCache/responseCacher``.
    public var responseCacher: ResponseCacher? {
        get { storage.values.responseCacher }
        set { update { $0.responseCacher = newValue } }
    }
    /// Where this request's cookies come from and go, instead of the session's
    /// ``SessionConfiguration/cookieStorage``: another storage (one per user, for a server that
    /// acts for many users with one session), or none.
    public var cookieStorage: RequestCookieStorage? {
        get { storage.values.cookieStorage }
        set { update { $0.cookieStorage = newValue } }
    }
    /// How long to wait for a satisfied network path before each attempt, instead of the
    /// session's ``SessionConfiguration/waitsForConnectivity``; zero starts at once whatever
    /// the path. Past the limit the attempt fails with ``CurlewError/Kind/notConnected``.
    public var waitsForConnectivity: Duration? {
        get { storage.values.waitsForConnectivity }
        set { update { $0.waitsForConnectivity = newValue } }
    }
    /// Other hosts and ports to connect to (`CURLOPT_CONNECT_TO`), instead of the session's
    /// ``NetworkControls/connectTo``; an empty map turns the session's off for this request.
    /// A pooled connection made with a mapping carries only requests with the same one.
    public var connectTo: [HostAndPort: HostAndPort]? {
        get { storage.values.connectTo }
        set { update { $0.connectTo = newValue } }
    }
    /// Which IP versions this request may connect over (`CURLOPT_IPRESOLVE`), instead of the
    /// session's ``NetworkControls/ipVersion``.
    public var ipVersion: IPVersionPreference? {
        get { storage.values.ipVersion }
        set { update { $0.ipVersion = newValue } }
    }

    /// The HTTP/2 stream weight of this request (`CURLOPT_STREAM_WEIGHT`), 1...256; libcurl's
    /// default is 16. It goes as the priority of the request's HEADERS frame, so that a server
    /// sharing one connection among streams may give this one a larger or smaller share. RFC
    /// 9113 deprecates these priorities and many servers ignore them; over HTTP/1.1 it does
    /// nothing. Another value fails the request with ``CurlewError/Kind/invalidRequest`` before
    /// any connection. `cURLDescription()` names it after the URL
    /// (`# libcurl only: CURLOPT_STREAM_WEIGHT=N`): the curl tool has no flag for it. Stream
    /// dependencies (`CURLOPT_STREAM_DEPENDS`) are not offered: they name another transfer's
    /// live libcurl handle.
    public var http2StreamWeight: Int? {
        get { storage.values.http2StreamWeight }
        set { update { $0.http2StreamWeight = newValue } }
    }

    /// The fields as one value (for tests that enumerate them).
    var values: Values { storage.values }

    /// True for options made by `RequestOptions()` and never changed since, which override
    /// nothing: one comparison of references, where reading every field would take fourteen.
    var isUntouchedDefault: Bool { storage === Storage.empty }

    private mutating func update(_ change: (inout Values) -> Void) {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.values) }
        change(&storage.values)
    }

    /// Every override, stored by value.
    struct Values: Sendable {
        var timeouts: Timeouts = Timeouts.unset
        var redirectPolicy: RedirectPolicy?
        var maximumBodySize: Int?
        var httpVersion: HTTPVersionPreference?
        var proxy: ProxyConfiguration?
        var credential: HTTPCredential?
        var unixSocketPath: String?
        var expectContinue: ExpectContinue?
        var cachePolicy: CachePolicy?
        var responseCacher: ResponseCacher?
        var waitsForConnectivity: Duration?
        var cookieStorage: RequestCookieStorage?
        var connectTo: [HostAndPort: HostAndPort]?
        var ipVersion: IPVersionPreference?
        var wireTrace: WireTrace?
        var http2StreamWeight: Int?
    }

    /// The box the copies share.
    private final class Storage: @unchecked Sendable {
        // Safe: `values` changes only through `RequestOptions.update`, and only in a box that
        // one `RequestOptions` holds alone (`isKnownUniquelyReferenced`); shared boxes are read-only.
        var values: Values

        /// The box of options that override nothing, shared by every `RequestOptions()`.
        static let empty = Storage(Values())

        init(_ values: Values) { self.values = values }
    }
}
