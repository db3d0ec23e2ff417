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
    /// The URL itself when libcurl can send it: an http, https or http+unix scheme, a host (for
    /// http+unix, the socket's path; see ``RequestOptions/unixSocketPath``), no spaces or
    /// control characters, at most ``OutgoingRequest/maximumURLLength`` bytes.
    ///
    /// One pass over the bytes of `absoluteString`, which `URL` has parsed already: its
    /// `scheme` and `host` getters would each parse the string again (about 2,000
    /// instructions per request between them).
    func validatedForTransfer() throws(CurlewError) -> URL {
        let text = absoluteString
        let problem = text.utf8.withContiguousStorageIfAvailable { Self.transferProblem(of: $0) }
            ?? Self.transferProblem(of: Array(text.utf8))
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
    /// characters anywhere.
    static func transferProblem(of bytes: some Collection<UInt8>) -> TransferProblem? {
        var index = bytes.startIndex
        while index != bytes.endIndex, bytes[index] != UInt8(ascii: ":") {
            let byte = bytes[index]
            let folded = byte | 0x20
            let isLetter = folded >= UInt8(ascii: "a") && folded <= UInt8(ascii: "z")
            let isOther = (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            if index == bytes.startIndex ? !isLetter : !(isLetter || isOther) { return .noScheme }
            bytes.formIndex(after: &index)
        }
        guard index != bytes.startIndex, index != bytes.endIndex else { return .noScheme }
        let scheme = bytes[bytes.startIndex..<index]
        guard equalsIgnoringCase(scheme, "http") || equalsIgnoringCase(scheme, "https")
            || equalsIgnoringCase(scheme, "http+unix")
        else {
            return .unsupportedScheme(String(decoding: scheme, as: UTF8.self))
        }
        bytes.formIndex(after: &index)  // The colon.
        guard bytes[index...].starts(with: "//".utf8) else { return .noHost }
        let authorityStart = bytes.index(index, offsetBy: 2)
        var authorityEnd = authorityStart
        var hostStart = authorityStart
        while authorityEnd != bytes.endIndex {
            let byte = bytes[authorityEnd]
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            bytes.formIndex(after: &authorityEnd)
            if byte == UInt8(ascii: "@") { hostStart = authorityEnd }
        }
        var hostEnd = authorityEnd
        if hostStart != authorityEnd, bytes[hostStart] == UInt8(ascii: "[") {
            // An IP literal: the host is what the brackets hold.
            guard let close = bytes[hostStart..<authorityEnd].firstIndex(of: UInt8(ascii: "]")),
                bytes.distance(from: hostStart, to: close) > 1
            else { return .noHost }
            hostEnd = close
        } else if let colon = bytes[hostStart..<authorityEnd].firstIndex(of: UInt8(ascii: ":")) {
            hostEnd = colon
        }
        if hostStart == hostEnd { return .noHost }
        let length = bytes.count
        if length > OutgoingRequest.maximumURLLength { return .tooLong(length) }
        if bytes.contains(where: { $0 < 0x21 || $0 == 0x7F }) { return .controlCharacters }
        return nil
    }

    /// Whether `bytes` spell `lowercase`, ASCII letters in either case.
    private static func equalsIgnoringCase(_ bytes: some Collection<UInt8>, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        var expected = lowercase.utf8Start
        for byte in bytes {
            let folded = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            if folded != expected.pointee { return false }
            expected += 1
        }
        return true
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
