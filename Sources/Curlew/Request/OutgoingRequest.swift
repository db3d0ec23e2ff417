import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes

/// A request as it will go on the wire: URL, method, header fields, body and options.
///
/// Interceptors adapt this value before each attempt.
public struct OutgoingRequest: Sendable {
    /// The absolute http or https URL.
    public var url: URL
    /// The method; any RFC 9110 method or a custom one.
    public var method: HTTPRequest.Method
    /// The header fields. `User-Agent`, `Accept-Language` and `Accept-Encoding` defaults are
    /// added unless set here (see ``SessionConfiguration/userAgent``).
    public var headerFields: HTTPFields
    /// The body, if any.
    public var body: RequestBody?
    /// Per-request overrides of the session's settings.
    public var options: RequestOptions

    /// Creates a request.
    public init(
        url: URL, method: HTTPRequest.Method = .get, headerFields: HTTPFields = [:],
        body: RequestBody? = nil, options: RequestOptions = RequestOptions()
    ) {
        self.url = url
        self.method = method
        self.headerFields = headerFields
        self.body = body
        self.options = options
    }

    /// Converts a Foundation `URLRequest`, for code arriving from URLSession or Alamofire.
    ///
    /// Method, URL, headers, body and timeout carry over. A `httpBodyStream` becomes a one-shot
    /// ``RequestBody/inputStream(_:length:)`` body, sent chunked unless the request states a
    /// `Content-Length`.
    public init(_ urlRequest: URLRequest) throws(CurlewError) {
        guard let url = urlRequest.url else {
            throw CurlewError(.invalidURL, "the URLRequest has no URL")
        }
        guard let method = HTTPRequest.Method(urlRequest.httpMethod ?? "GET") else {
            throw CurlewError(
                .invalidRequest, "'\(urlRequest.httpMethod ?? "")' is not a valid method", url: url)
        }
        var fields = HTTPFields()
        for (name, value) in urlRequest.allHTTPHeaderFields ?? [:] {
            fields.append(try HTTPField.validated(name: name, value: value, url: url))
        }
        var options = RequestOptions()
        if urlRequest.timeoutInterval > 0 && urlRequest.timeoutInterval != 60 {
            options.timeouts.idle = .milliseconds(Int64(urlRequest.timeoutInterval * 1000))
        }
        self.init(
            url: url, method: method, headerFields: fields,
            body: urlRequest.httpBody.map { .data($0) } ?? urlRequest.httpBodyStream.map { .inputStream($0) },
            options: options)
    }
}

/// Per-request overrides; `nil` means "use the session's setting".
public struct RequestOptions: Sendable {
    /// Timeouts; each nil field falls back to the session's.
    public var timeouts = Timeouts.unset
    /// How redirects are followed.
    public var redirectPolicy: RedirectPolicy?
    /// The largest body collected in memory, in bytes; zero allows only empty bodies, and a
    /// negative size fails the request with ``CurlewError/Kind/invalidRequest``.
    public var maximumBodySize: Int?
    /// The HTTP version to ask for.
    public var httpVersion: HTTPVersionPreference?
    /// The proxy for this request instead of the session's.
    public var proxy: ProxyConfiguration?
    /// Credentials for HTTP authentication, used instead of the session's
    /// ``SessionConfiguration/credentials``, and only at the origin (scheme, host and port) of
    /// the request's URL: a redirect to another origin goes without them.
    public var credential: HTTPCredential?
    /// A Unix-domain socket to connect to instead of the URL's host and port, for an http or
    /// https URL (an `http+unix://` URL names its socket itself). The `Host` field still names
    /// the URL's host. Proxies never apply; a redirect stays on the socket only within the
    /// URL's origin. At most 107 bytes, and not empty.
    public var unixSocketPath: String?
    /// Whether to ask with `Expect: 100-continue` before sending the body, instead of the
    /// session's ``SessionConfiguration/expectContinue``.
    public var expectContinue: ExpectContinue?
    /// How this request uses the session's ``HTTPCache``; nil is ``CachePolicy/useProtocolPolicy``.
    public var cachePolicy: CachePolicy?
    /// What the cache stores of this request's response, instead of the cache's own
    /// ``HTTPCache/responseCacher``.
    public var responseCacher: ResponseCacher?
    /// How long to wait for a satisfied network path before each attempt, instead of the
    /// session's ``SessionConfiguration/waitsForConnectivity``; zero starts at once whatever
    /// the path. Past the limit the attempt fails with ``CurlewError/Kind/notConnected``.
    public var waitsForConnectivity: Duration?

    /// Creates options that override nothing.
    public init() {}
}

extension HTTPField {
    /// A field built from untrusted strings: CR, LF, NUL and invalid names are errors here,
    /// where `HTTPField(name:value:)` would silently replace them.
    static func validated(name: String, value: String, url: URL?) throws(CurlewError) -> HTTPField {
        guard let fieldName = HTTPField.Name(name) else {
            throw CurlewError(.invalidHeader, "'\(name.debugDescription)' is not a valid header name", url: url)
        }
        guard HTTPField.isValidValue(value) else {
            throw CurlewError(
                .invalidHeader,
                "the value of header '\(name)' contains CR, LF, NUL or other forbidden characters",
                url: url)
        }
        return HTTPField(name: fieldName, value: value)
    }
}
