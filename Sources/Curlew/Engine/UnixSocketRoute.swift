import Foundation

/// Where a hop goes when it goes over a Unix-domain socket: the socket's path, and the URL
/// libcurl is given (`http://localhost/…` for an `http+unix://` URL, whose host is the socket).
///
/// The socket comes from the URL (`http+unix://%2Fvar%2Frun%2Fdocker.sock/v1.43/info`, the
/// spelling Docker clients use) or from ``RequestOptions/unixSocketPath`` for an ordinary http
/// or https URL. libcurl connects to the socket with `CURLOPT_UNIX_SOCKET_PATH`, never through
/// a proxy, and names the host in the `Host` field (`localhost` for an `http+unix` URL).
struct UnixSocketRoute: Sendable, Equatable {
    /// The socket's path, as given (absolute or relative to the working directory).
    let path: String
    /// The URL libcurl requests.
    let curlURL: String

    /// The longest path a socket address holds: `sun_path` is 108 bytes with its final NUL.
    static let maximumPathLength = 107

    /// The route of `request`'s hop, or nil for a hop over TCP. The common case costs a look at
    /// the option and at `facts` (of the URL's text `urlText`, its `absoluteString`).
    static func resolve(_ request: OutgoingRequest, urlText: String? = nil, facts: HopURLFacts? = nil) throws(CurlewError) -> UnixSocketRoute? {
        let option = request.options.unixSocketPath
        let text = urlText ?? request.url.absoluteString
        let inURL = (facts ?? HopURLFacts(text)).isUnixScheme
        guard option != nil || inURL else { return nil }
        guard inURL else {
            let path = option ?? ""
            try check(path, url: request.url, kind: .invalidRequest, source: "RequestOptions.unixSocketPath")
            return UnixSocketRoute(path: path, curlURL: text)
        }
        let url = request.url
        guard let encoded = url.host(percentEncoded: true), let path = encoded.removingPercentEncoding else {
            throw CurlewError(.invalidURL, "an http+unix URL names its socket as its host, percent-encoded; this one has none", url: url)
        }
        try check(path, url: url, kind: .invalidURL, source: "the http+unix URL's host")
        if let option, option != path {
            throw CurlewError(
                .invalidRequest,
                "the http+unix URL names the socket \(path) but RequestOptions.unixSocketPath names \(option); give one",
                url: url)
        }
        guard url.port == nil else {
            throw CurlewError(.invalidURL, "an http+unix URL has no port: its host is the socket's path", url: url)
        }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            throw CurlewError(.invalidURL, "the http+unix URL cannot be taken apart", url: url)
        }
        components.scheme = "http"
        components.percentEncodedHost = "localhost"
        guard let curlURL = components.url?.absoluteString else {
            throw CurlewError(.invalidURL, "the http+unix URL has no http equivalent", url: url)
        }
        return UnixSocketRoute(path: path, curlURL: curlURL)
    }

    /// Whether `url` is an `http+unix` URL.
    static func hasUnixScheme(_ url: URL) -> Bool {
        url.scheme?.lowercased() == "http+unix"
    }

    private static func check(_ path: String, url: URL, kind: CurlewError.Kind, source: String) throws(CurlewError) {
        guard !path.isEmpty else {
            throw CurlewError(kind, "\(source) is an empty Unix socket path", url: url)
        }
        guard !path.utf8.contains(0) else {
            throw CurlewError(kind, "\(source) contains a NUL byte; abstract sockets are not supported", url: url)
        }
        let length = path.utf8.count
        guard length <= maximumPathLength else {
            throw CurlewError(
                kind,
                "the Unix socket path \(Redaction.string(String(path.prefix(60))))… is \(length) bytes, more than the \(maximumPathLength) a socket address holds",
                url: url)
        }
    }
}
