import Foundation

/// Something that can name the URL of a request: `String`, `URL` or `URLComponents`.
public protocol URLConvertible: Sendable {
    /// The URL, or a ``CurlewError`` of kind ``CurlewError/Kind/invalidURL``.
    func asURL() throws(CurlewError) -> URL
}

extension String: URLConvertible {
    public func asURL() throws(CurlewError) -> URL {
        guard let url = URL(string: self), url.scheme != nil else {
            throw CurlewError(.invalidURL, "'\(self)' is not a valid absolute URL")
        }
        return url
    }
}

extension URL: URLConvertible {
    public func asURL() throws(CurlewError) -> URL { self }
}

extension URLComponents: URLConvertible {
    public func asURL() throws(CurlewError) -> URL {
        guard let url else {
            throw CurlewError(.invalidURL, "URLComponents \(self) do not form a valid URL")
        }
        return url
    }
}

extension URL {
    /// Checks what libcurl needs of a request URL: an http or https scheme and a host.
    func validatedForTransfer() throws(CurlewError) -> URL {
        guard let scheme = scheme?.lowercased() else {
            throw CurlewError(.invalidURL, "the URL has no scheme", url: self)
        }
        guard scheme == "http" || scheme == "https" else {
            throw CurlewError(
                .unsupportedScheme, "only http and https are allowed, not '\(scheme)'", url: self)
        }
        guard let host = host, !host.isEmpty else {
            throw CurlewError(.invalidURL, "the URL has no host", url: self)
        }
        if absoluteString.utf8.contains(where: { $0 < 0x21 || $0 == 0x7F }) {
            throw CurlewError(.invalidURL, "the URL contains spaces or control characters", url: self)
        }
        return self
    }
}
