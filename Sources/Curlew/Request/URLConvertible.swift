import Foundation

/// Something that can name the URL of a request: `String`, `URL` or `URLComponents`.
public protocol URLConvertible: Sendable {
    /// The URL, or a ``CurlewError`` of kind ``CurlewError/Kind/invalidURL``.
    func asURL() throws(CurlewError) -> URL
}

extension String: URLConvertible {
    public func asURL() throws(CurlewError) -> URL {
        guard let url = URL(string: self), url.scheme != nil else {
            throw CurlewError(.invalidURL, "'\(Redaction.string(self))' is not a valid absolute URL")
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
            throw CurlewError(.invalidURL, "URLComponents \(Redaction.string(description)) do not form a valid URL")
        }
        return url
    }
}

extension URL {
    /// Checks what libcurl needs of a request URL: an http, https or http+unix scheme and a host
    /// (for http+unix, the socket's path; see ``RequestOptions/unixSocketPath``).
    func validatedForTransfer() throws(CurlewError) -> URL {
        guard let scheme else {
            throw CurlewError(.invalidURL, "the URL has no scheme", url: self)
        }
        // Lowercase schemes (nearly all) skip making a lowercased copy.
        guard scheme == "http" || scheme == "https" || ["http", "https", "http+unix"].contains(scheme.lowercased()) else {
            throw CurlewError(
                .unsupportedScheme, "only http, https and http+unix are allowed, not '\(scheme.lowercased())'", url: self)
        }
        guard let host = host, !host.isEmpty else {
            throw CurlewError(.invalidURL, "the URL has no host", url: self)
        }
        let isControl = { (byte: UInt8) in byte < 0x21 || byte == 0x7F }
        let text = absoluteString
        let length = text.utf8.count
        if length > OutgoingRequest.maximumURLLength {
            throw CurlewError(
                .invalidURL,
                "the URL is too long: \(length) bytes, more than the limit of \(OutgoingRequest.maximumURLLength >> 10) KiB",
                url: self)
        }
        if text.utf8.withContiguousStorageIfAvailable({ $0.contains(where: isControl) }) ?? text.utf8.contains(where: isControl) {
            throw CurlewError(.invalidURL, "the URL contains spaces or control characters", url: self)
        }
        return self
    }
}

extension OutgoingRequest {
    /// The longest URL Curlew sends, in bytes (512 KiB); longer ones fail with
    /// ``CurlewError/Kind/invalidURL``.
    ///
    /// libcurl 7.88 builds a request's head (request line and header fields) in at most 1 MiB
    /// and reports a larger one as "out of memory"; this limit leaves half of that to the
    /// header fields. Many servers accept far less (often 8 KiB).
    public static let maximumURLLength = 512 << 10
}
