import Foundation
import HTTPTypes

/// The one error type Curlew throws.
///
/// A struct over a private code, so that new kinds can be added without breaking callers.
/// Match on ``kind``:
///
/// ```swift
/// do {
///     _ = try await session.request(url).data()
/// } catch {   // a CurlewError: requests use typed throws
///     if error.kind == .connectionRefused { print(error.message) }
/// }
/// ```
///
/// Every error names the URL it concerns, with any password in it redacted. Where one exists
/// it also carries the libcurl code and message, the HTTP status and the response body.
public struct CurlewError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as an extensible set of kinds.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Code: String, Sendable {
            case invalidURL, unsupportedScheme, invalidHeader, invalidRequest
            case connectionRefused, hostNotFound, connectTimeout, totalTimeout, idleTimeout, tooSlow
            case connectionClosedMidBody, malformedResponse, bodyTooLarge, tooManyRedirects
            case redirectRejected, decompressionBomb, tlsFailure, transport
            case cancelled, taskCancelled, streamDropped, sessionShutdown
            case unacceptableStatus, unacceptableContentType, validationFailed, emptyResponse, serializationFailed
            case fileSystem, bodyNotReplayable, uploadFailed, streamAlreadyConsumed
            case retryLimitExceeded, authenticationFailed, proxyFailure, untrustedServer
            case resumeFailed, notCached, notConnected
            case webSocketHandshakeFailed, webSocketProtocolError, webSocketClosed
        }
        fileprivate let code: Code

        public var description: String { code.rawValue }

        /// The URL cannot be parsed, or has no host.
        public static let invalidURL = Kind(code: .invalidURL)
        /// The URL, or a redirect target, uses a scheme other than http or https.
        public static let unsupportedScheme = Kind(code: .unsupportedScheme)
        /// A header name or value is invalid, for example it contains CR or LF.
        public static let invalidHeader = Kind(code: .invalidHeader)
        /// The request could not be built, for example an unreadable body file.
        public static let invalidRequest = Kind(code: .invalidRequest)
        /// Nothing accepted the connection.
        public static let connectionRefused = Kind(code: .connectionRefused)
        /// The host name could not be resolved.
        public static let hostNotFound = Kind(code: .hostNotFound)
        /// The connection was not established within the connect timeout.
        public static let connectTimeout = Kind(code: .connectTimeout)
        /// The whole transfer took longer than the total timeout.
        public static let totalTimeout = Kind(code: .totalTimeout)
        /// No bytes moved for longer than the idle timeout.
        public static let idleTimeout = Kind(code: .idleTimeout)
        /// The transfer stayed below ``Timeouts/minimumSpeed`` for the whole window.
        public static let tooSlow = Kind(code: .tooSlow)
        /// The server closed the connection before the whole body arrived.
        public static let connectionClosedMidBody = Kind(code: .connectionClosedMidBody)
        /// The server's response could not be parsed as HTTP.
        public static let malformedResponse = Kind(code: .malformedResponse)
        /// The body is larger than the configured maximum.
        public static let bodyTooLarge = Kind(code: .bodyTooLarge)
        /// A ``TrustPolicy`` rejected the server after the TLS handshake (a pin, fingerprint or
        /// custom evaluation did not accept it), before any byte of the request was sent. The
        /// message names the host, the policy and the leaf certificate seen.
        public static let untrustedServer = Kind(code: .untrustedServer)
        /// The redirect limit was exceeded.
        public static let tooManyRedirects = Kind(code: .tooManyRedirects)
        /// The redirect policy refused a redirect.
        public static let redirectRejected = Kind(code: .redirectRejected)
        /// A compressed body expanded past the configured ratio.
        public static let decompressionBomb = Kind(code: .decompressionBomb)
        /// The TLS handshake or certificate verification failed.
        public static let tlsFailure = Kind(code: .tlsFailure)
        /// Another transport failure reported by libcurl; see ``CurlewError/curlCode``.
        public static let transport = Kind(code: .transport)
        /// `request.cancel()` was called.
        public static let cancelled = Kind(code: .cancelled)
        /// The Task awaiting the request was cancelled.
        public static let taskCancelled = Kind(code: .taskCancelled)
        /// The iterator of an event or byte stream was dropped before the end.
        public static let streamDropped = Kind(code: .streamDropped)
        /// The session was shut down.
        public static let sessionShutdown = Kind(code: .sessionShutdown)
        /// Validation rejected the HTTP status.
        public static let unacceptableStatus = Kind(code: .unacceptableStatus)
        /// Validation rejected the response's Content-Type.
        public static let unacceptableContentType = Kind(code: .unacceptableContentType)
        /// A custom validation rejected the response.
        public static let validationFailed = Kind(code: .validationFailed)
        /// The body was empty where the serializer needs one.
        public static let emptyResponse = Kind(code: .emptyResponse)
        /// A serializer could not turn the body into the requested type.
        public static let serializationFailed = Kind(code: .serializationFailed)
        /// Reading or writing a local file failed.
        public static let fileSystem = Kind(code: .fileSystem)
        /// The body is a one-shot stream and cannot be sent again.
        public static let bodyNotReplayable = Kind(code: .bodyNotReplayable)
        /// Producing the upload body failed.
        public static let uploadFailed = Kind(code: .uploadFailed)
        /// The body was already consumed in another mode (for example as a byte stream).
        public static let streamAlreadyConsumed = Kind(code: .streamAlreadyConsumed)
        /// A retry policy gave up.
        public static let retryLimitExceeded = Kind(code: .retryLimitExceeded)
        /// Authentication (for example an OAuth2 refresh) failed.
        public static let authenticationFailed = Kind(code: .authenticationFailed)
        /// The proxy could not be reached, refused the request, or asked for credentials it was
        /// not given; the message names the proxy, never its password.
        public static let proxyFailure = Kind(code: .proxyFailure)
        /// A resumed download's response does not continue the partial file: it names another
        /// validator, its `Content-Range` starts elsewhere or gives another total, its body runs
        /// past or stops short of its range, or a `416` does not match the file; or the partial
        /// file cannot be used (a link, not a regular file, another user's). Nothing is written
        /// to the destination.
        public static let resumeFailed = Kind(code: .resumeFailed)
        /// The request's cache policy (``CachePolicy/returnCacheDataDontLoad``, or
        /// `Cache-Control: only-if-cached`) forbade the network and no stored response could answer.
        public static let notCached = Kind(code: .notCached)
        /// The request waited for a network path (``RequestOptions/waitsForConnectivity``) and
        /// none became satisfied within the limit; nothing was sent. The message gives the path.
        public static let notConnected = Kind(code: .notConnected)
        /// The server did not accept the WebSocket handshake: another status than `101` (the
        /// error carries the response head), or a `101` whose `Sec-WebSocket-Accept`, `Upgrade`,
        /// subprotocol or extensions do not answer the request. Redirects are not followed.
        public static let webSocketHandshakeFailed = Kind(code: .webSocketHandshakeFailed)
        /// The server broke RFC 6455 or RFC 7692 (a masked or reserved frame, text that is not
        /// UTF-8, a bad close code, …); Curlew sent the matching close code and dropped the connection.
        public static let webSocketProtocolError = Kind(code: .webSocketProtocolError)
        /// The WebSocket is closed: the server closed it with a code other than 1000 or 1001,
        /// ended it without a close frame, or a message was sent after the close.
        public static let webSocketClosed = Kind(code: .webSocketClosed)
    }

    /// The fields, in one shared box: errors travel inside `Result`s and optionals through the
    /// whole pipeline, and a one-word error keeps those small and cheap to copy.
    private final class Storage: Sendable {
        let kind: Kind
        let message: String
        let url: URL?
        let curlCode: Int?
        let curlMessage: String?
        let responseHead: HTTPResponse?
        let responseBody: Data?
        let underlying: (any Error & Sendable)?
        let downloadResumeData: DownloadResumeData?
        /// A cancel reason asking the download to keep its partial file and give resume data.
        let keepsPartialDownload: Bool
        let acceptableContentTypes: [String]?

        init(
            kind: Kind, message: String, url: URL?, curlCode: Int?, curlMessage: String?,
            responseHead: HTTPResponse?, responseBody: Data?, underlying: (any Error & Sendable)?,
            downloadResumeData: DownloadResumeData? = nil, keepsPartialDownload: Bool = false,
            acceptableContentTypes: [String]? = nil
        ) {
            self.acceptableContentTypes = acceptableContentTypes
            self.downloadResumeData = downloadResumeData
            self.keepsPartialDownload = keepsPartialDownload
            self.kind = kind
            self.message = message
            self.url = url
            self.curlCode = curlCode
            self.curlMessage = curlMessage
            self.responseHead = responseHead
            self.responseBody = responseBody
            self.underlying = underlying
        }
    }

    private let storage: Storage

    /// What went wrong.
    public var kind: Kind { storage.kind }
    /// A human-readable explanation.
    public var message: String { storage.message }
    /// The URL the error concerns, when known, with any password in it replaced by `***`
    /// (the user name stays), so that errors can be logged and shown safely.
    public var url: URL? { storage.url }
    /// The libcurl `CURLcode`, when libcurl reported the failure.
    public var curlCode: Int? { storage.curlCode }
    /// libcurl's own error text for ``curlCode``.
    public var curlMessage: String? { storage.curlMessage }
    /// The HTTP status, when a response head arrived.
    public var status: HTTPResponse.Status? { storage.responseHead?.status }
    /// The response head, when one arrived.
    public var responseHead: HTTPResponse? { storage.responseHead }
    /// The response body, when one was collected.
    public var responseBody: Data? { storage.responseBody }
    /// The error underneath, for example a `DecodingError`.
    public var underlying: (any Error & Sendable)? { storage.underlying }
    /// What it takes to resume the failed download, when it can be resumed; see
    /// ``DownloadResumeData``. The partial file it names then belongs to the caller.
    public var downloadResumeData: DownloadResumeData? { storage.downloadResumeData }
    var keepsPartialDownload: Bool { storage.keepsPartialDownload }
    /// For an ``Kind/unacceptableContentType`` error, the content types validation would have
    /// accepted, sorted (empty when it accepted no body at all); nil for other errors.
    public var acceptableContentTypes: [String]? { storage.acceptableContentTypes }

    /// Creates an error. Public so that serializers, adapters and retriers written outside
    /// Curlew can throw errors of the same shape.
    public init(
        _ kind: Kind, _ message: String, url: URL? = nil, curlCode: Int? = nil,
        curlMessage: String? = nil, responseHead: HTTPResponse? = nil, responseBody: Data? = nil,
        underlying: (any Error & Sendable)? = nil
    ) {
        storage = Storage(
            kind: kind, message: message, url: url.map(Redaction.url), curlCode: curlCode, curlMessage: curlMessage,
            responseHead: responseHead, responseBody: responseBody, underlying: underlying)
    }

    public var description: String {
        var text = "Curlew.\(kind): \(message)"
        if let url { text += " [\(url.absoluteString)]" }
        if let status { text += " (HTTP \(status.code))" }
        if let curlCode {
            text += " (curl \(curlCode)"
            if let curlMessage, !curlMessage.isEmpty { text += ": \(curlMessage)" }
            text += ")"
        }
        if let underlying { text += " — \(underlying)" }
        return text
    }

    private init(storage: Storage) {
        self.storage = storage
    }

    /// A copy with the URL, head and body filled in where they were missing.
    func adding(url: URL?, head: HTTPResponse? = nil, body: Data? = nil) -> CurlewError {
        CurlewError(storage: Storage(
            kind: kind, message: message, url: self.url ?? url.map(Redaction.url), curlCode: curlCode,
            curlMessage: curlMessage, responseHead: responseHead ?? head, responseBody: responseBody ?? body,
            underlying: underlying, downloadResumeData: downloadResumeData, keepsPartialDownload: keepsPartialDownload,
            acceptableContentTypes: acceptableContentTypes))
    }

    /// A copy naming `url` (redacted) instead: a WebSocket handshake's failure as the retriers
    /// see it, on the http or https URL of the request they are given.
    func naming(_ url: URL) -> CurlewError {
        CurlewError(storage: Storage(
            kind: kind, message: message, url: Redaction.url(url), curlCode: curlCode, curlMessage: curlMessage,
            responseHead: responseHead, responseBody: responseBody, underlying: underlying,
            downloadResumeData: downloadResumeData, keepsPartialDownload: keepsPartialDownload,
            acceptableContentTypes: acceptableContentTypes))
    }

    /// A copy whose `underlying` is `error` — what a response interceptor made of a failed
    /// attempt — keeping the kind, message, codes, head, body and resume data.
    func replacing(underlying error: any Error & Sendable) -> CurlewError {
        CurlewError(storage: Storage(
            kind: kind, message: message, url: url, curlCode: curlCode, curlMessage: curlMessage,
            responseHead: responseHead, responseBody: responseBody, underlying: error,
            downloadResumeData: downloadResumeData, keepsPartialDownload: keepsPartialDownload,
            acceptableContentTypes: acceptableContentTypes))
    }

    /// A copy carrying resume data, or asking a download to keep its partial file.
    func with(downloadResumeData: DownloadResumeData?, keepsPartialDownload: Bool = false) -> CurlewError {
        CurlewError(storage: Storage(
            kind: kind, message: message, url: url, curlCode: curlCode, curlMessage: curlMessage,
            responseHead: responseHead, responseBody: responseBody, underlying: underlying,
            downloadResumeData: downloadResumeData, keepsPartialDownload: keepsPartialDownload,
            acceptableContentTypes: acceptableContentTypes))
    }

    /// A copy naming the content types validation would have accepted.
    func with(acceptableContentTypes types: [String]) -> CurlewError {
        CurlewError(storage: Storage(
            kind: kind, message: message, url: url, curlCode: curlCode, curlMessage: curlMessage,
            responseHead: responseHead, responseBody: responseBody, underlying: underlying,
            downloadResumeData: downloadResumeData, keepsPartialDownload: keepsPartialDownload,
            acceptableContentTypes: types))
    }
}

extension CurlewError {
    /// A ``Kind/fileSystem`` error for a failed system call: the message ends with the reason
    /// in words, and ``underlying`` is the `POSIXError` for `code` (so `ENOENT` can be told from
    /// `EEXIST` without reading the text).
    static func fileSystem(_ message: String, code: Int32, url: URL? = nil) -> CurlewError {
        CurlewError(
            .fileSystem, message + ": " + String(cString: strerror(code)), url: url,
            underlying: POSIXErrorCode(rawValue: code).map { POSIXError($0) })
    }
}

extension CurlewError: LocalizedError {
    public var errorDescription: String? { description }
}
