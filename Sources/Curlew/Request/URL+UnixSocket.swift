import Foundation

extension URL {
    /// An `http+unix` URL for a request to the HTTP server listening on the Unix-domain socket
    /// at `socketPath` (Docker's `/var/run/docker.sock`, say): the socket's path is the URL's
    /// host, percent-encoded, and `path` and `query` follow as in any http URL.
    ///
    /// ```swift
    /// let info = try URL.unixSocket("/var/run/docker.sock", path: "/v1.43/info")
    /// // http+unix://%2Fvar%2Frun%2Fdocker.sock/v1.43/info
    /// let status = try await session.request(info).validate().decode(DockerInfo.self)
    /// ```
    ///
    /// The request goes to the socket with `Host: localhost`; proxies never apply. To keep an
    /// `http://` URL (and its `Host`) and only route it to a socket, set
    /// ``RequestOptions/unixSocketPath`` instead.
    ///
    /// - Throws: ``CurlewError/Kind/invalidURL`` when `socketPath` is empty, relative, holds a
    ///   NUL byte or is longer than a socket address can hold, or `path` does not start with
    ///   `/`.
    public static func unixSocket(_ socketPath: String, path: String = "/", query: String? = nil) throws(CurlewError) -> URL {
        guard socketPath.hasPrefix("/") else {
            throw CurlewError(.invalidURL, "the Unix socket path \(socketPath.debugDescription) is not absolute")
        }
        guard !socketPath.utf8.contains(0) else {
            throw CurlewError(.invalidURL, "the Unix socket path contains a NUL byte; abstract sockets are not supported")
        }
        guard socketPath.utf8.count <= UnixSocketRoute.maximumPathLength else {
            throw CurlewError(
                .invalidURL,
                "the Unix socket path is \(socketPath.utf8.count) bytes; a socket address holds at most \(UnixSocketRoute.maximumPathLength)")
        }
        guard path.hasPrefix("/") else {
            throw CurlewError(.invalidURL, "the path \(path.debugDescription) of an http+unix URL must start with '/'")
        }
        // Every byte but unreserved ones is encoded, '/' included: the whole path is one host.
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        var components = URLComponents()
        components.scheme = "http+unix"
        guard let host = socketPath.addingPercentEncoding(withAllowedCharacters: unreserved) else {
            throw CurlewError(.invalidURL, "the Unix socket path cannot be percent-encoded")
        }
        components.percentEncodedHost = host
        components.path = path
        components.query = query
        guard let url = components.url else {
            throw CurlewError(.invalidURL, "no http+unix URL can be made of the socket \(socketPath) and the path \(path.debugDescription)")
        }
        return url
    }
}
