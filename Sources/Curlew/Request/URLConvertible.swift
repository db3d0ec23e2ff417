import Foundation

/// Something that can name the URL of a request: `String`, `URL` or `URLComponents`.
public protocol URLConvertible: Sendable {
    /// The URL, or a ``CurlewError`` of kind ``CurlewError/Kind/invalidURL``.
    func asURL() throws(CurlewError) -> URL
}

extension String: URLConvertible {
    public func asURL() throws(CurlewError) -> URL {
        guard let url = URL(string: self), URLTextLayout.startsWithScheme(self) else {
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
    /// The URL itself when libcurl can send it: an http, https or http+unix scheme, a host (for
    /// http+unix, the socket's path; see ``RequestOptions/unixSocketPath``), no spaces or
    /// control characters, at most 512 KiB (`OutgoingRequest.maximumURLLength`).
    ///
    /// One pass over the bytes of `absoluteString`, which `URL` has parsed already: its
    /// `scheme` and `host` getters would each parse the string again (about 2,000
    /// instructions per request between them).
    func validatedForTransfer() throws(CurlewError) -> URL {
        var text = absoluteString
        let problem = text.withUTF8 { Self.transferProblem(of: $0) }
        guard let problem else { return self }
        switch problem {
        case .noScheme:
            throw CurlewError(.invalidURL, "the URL has no scheme", url: self)
        case .unsupportedScheme(let scheme):
            throw CurlewError(
                .unsupportedScheme, "only http, https and http+unix are allowed, not '\(scheme.lowercased())'", url: self)
        case .noHost:
            throw CurlewError(.invalidURL, "the URL has no host", url: self)
        case .tooLong(let length):
            throw CurlewError(
                .invalidURL,
                "the URL is too long: \(length) bytes, more than the limit of \(OutgoingRequest.maximumURLLength >> 10) KiB",
                url: self)
        case .controlCharacters:
            throw CurlewError(.invalidURL, "the URL contains spaces or control characters", url: self)
        }
    }

    /// Why the text of an absolute URL cannot be sent, in the order the checks run.
    enum TransferProblem: Equatable {
        case noScheme
        case unsupportedScheme(String)
        case noHost
        case tooLong(Int)
        case controlCharacters
    }

    /// Checks the text of an absolute URL: the scheme (before the first `:`, a letter then
    /// letters, digits, `+`, `-` or `.`), the host (the authority after `//` without its user
    /// information and port; an IP literal in brackets), the length, and spaces or control
    /// characters anywhere. The parts are found by ``URLTextLayout``.
    static func transferProblem(of bytes: UnsafeBufferPointer<UInt8>) -> TransferProblem? {
        guard let layout = URLTextLayout(bytes), layout.schemeEnd > 0 else { return .noScheme }
        let scheme = UnsafeBufferPointer(rebasing: bytes[..<layout.schemeEnd])
        for (offset, byte) in scheme.enumerated() where !URLTextLayout.isSchemeByte(byte, first: offset == 0) {
            return .noScheme
        }
        guard URLTextLayout.equalsIgnoringCase(scheme, "http") || URLTextLayout.equalsIgnoringCase(scheme, "https")
            || URLTextLayout.equalsIgnoringCase(scheme, "http+unix")
        else {
            return .unsupportedScheme(String(decoding: scheme, as: UTF8.self))
        }
        guard let authority = layout.authority else { return .noHost }
        let hostStart = layout.hostStart
        var hostEnd = authority.upperBound
        if hostStart != authority.upperBound, bytes[hostStart] == UInt8(ascii: "[") {
            // An IP literal: the host is what the brackets hold.
            guard let close = bytes[hostStart..<authority.upperBound].firstIndex(of: UInt8(ascii: "]")),
                close - hostStart > 1
            else { return .noHost }
            hostEnd = close
        } else if let colon = bytes[hostStart..<authority.upperBound].firstIndex(of: UInt8(ascii: ":")) {
            hostEnd = colon
        }
        if hostStart == hostEnd { return .noHost }
        if bytes.count > OutgoingRequest.maximumURLLength { return .tooLong(bytes.count) }
        if bytes.contains(where: { $0 < 0x21 || $0 == 0x7F }) { return .controlCharacters }
        return nil
    }
}

extension OutgoingRequest {
    /// The longest URL Curlew sends, in bytes (512 KiB); longer ones fail with
    /// ``CurlewError/Kind/invalidURL``.
    ///
    /// libcurl 7.88 builds a request's head (request line and header fields) in at most 1 MiB
    /// and reports a larger one as "out of memory"; this limit leaves half of that to the
    /// header fields. Many servers accept far less (often 8 KiB).
    static let maximumURLLength = 512 << 10
}
