import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import Synchronization

/// A request as it will go on the wire: URL, method, header fields, body and options.
///
/// Interceptors adapt this value before each attempt. It travels through every stage of the
/// pipeline: its fields live in one shared box, copied only when a copy of the request
/// changes (copy on write), so passing a request around costs one reference count.
public struct OutgoingRequest: Sendable {
    /// The fields, shared between copies until one of them changes.
    private var storage: Storage

    /// The absolute http or https URL.
    public var url: URL {
        get { storage.url }
        set { storage = storage.copy(url: newValue) }
    }

    /// The URL's text, as libcurl is given it; reading it parses nothing.
    var urlText: String { storage.urlText }

    /// Whether ``urlText`` is one that ``URLTextLayout/isPlainHTTPURL(_:)`` accepted: an http
    /// or https URL in lower case, without user information.
    var hasPlainURLText: Bool { storage.isPlainText }
    /// The method; any RFC 9110 method or a custom one.
    public var method: HTTPRequest.Method {
        get { storage.method }
        _modify {
            makeUnique()
            yield &storage.method
        }
    }
    /// The header fields. `User-Agent`, `Accept-Language` and `Accept-Encoding` defaults are
    /// added unless set here (see ``SessionConfiguration/userAgent``).
    public var headerFields: HTTPFields {
        get { storage.headerFields }
        _modify {
            makeUnique()
            yield &storage.headerFields
        }
    }
    /// The body, if any. A body that implies a `Content-Type` (``RequestBody/contentType``)
    /// sets it when it is set: a file's unless the fields have one, a form's always.
    public var body: RequestBody? {
        get { storage.body }
        _modify {
            makeUnique()
            yield &storage.body
            storage.applyImpliedContentType()
        }
    }
    /// Per-request overrides of the session's settings.
    public var options: RequestOptions {
        get { storage.options }
        _modify {
            makeUnique()
            yield &storage.options
        }
    }

    /// Creates a request.
    public init(
        url: URL, method: HTTPRequest.Method = .get, headerFields: HTTPFields = HTTPFields(),
        body: RequestBody? = nil, options: RequestOptions = RequestOptions()
    ) {
        storage = Storage(
            urlText: url.absoluteString, url: url, isPlainText: false, method: method, headerFields: headerFields,
            body: body, options: options)
        storage.applyImpliedContentType()
    }

    /// A request whose URL stays text until someone reads ``url``: `urlText` must be one that
    /// ``URLTextLayout/isPlainHTTPURL(_:)`` accepts, which Foundation's `URL(string:)` parses
    /// to a URL of the same text. Saves the parse (about 3,300 instructions) on the path
    /// where nothing reads the URL as a `URL`.
    init(
        plainURLText urlText: String, method: HTTPRequest.Method, headerFields: HTTPFields, body: RequestBody?,
        options: RequestOptions
    ) {
        storage = Storage(
            urlText: urlText, url: nil, isPlainText: true, method: method, headerFields: headerFields, body: body,
            options: options)
        storage.applyImpliedContentType()
    }

    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }

    /// The box the copies share.
    private final class Storage: @unchecked Sendable {
        // Safe: the `var` fields change only through `OutgoingRequest`'s accessors, after
        // `makeUnique()`, so only in a box that one request holds alone; shared boxes are
        // read-only. For the same reason the runtime's exclusivity checks are left out: the
        // struct's accessors are checked statically, as stored properties would be. The URL
        // parsed on first read is published through an atomic lazy reference, which any
        // thread may fill once.
        let urlText: String
        /// Whether the text passed ``URLTextLayout/isPlainHTTPURL(_:)``.
        let isPlainText: Bool
        /// The URL as given; nil when it was given as text, until the first read parses it.
        private let givenURL: URL?
        private let parsedURL = AtomicLazyReference<ParsedURL>()
        @exclusivity(unchecked) var method: HTTPRequest.Method
        @exclusivity(unchecked) var headerFields: HTTPFields
        @exclusivity(unchecked) var body: RequestBody?
        @exclusivity(unchecked) var options: RequestOptions

        init(
            urlText: String, url: URL?, isPlainText: Bool, method: HTTPRequest.Method, headerFields: HTTPFields,
            body: RequestBody?, options: RequestOptions
        ) {
            self.urlText = urlText
            self.isPlainText = isPlainText
            self.givenURL = url
            self.method = method
            self.headerFields = headerFields
            self.body = body
            self.options = options
        }

        /// Sets the `Content-Type` the body implies (see ``OutgoingRequest/body``).
        func applyImpliedContentType() {
            guard let implied = body?.impliedContentType else { return }
            if implied.replacesHeader || headerFields[.contentType] == nil { headerFields[.contentType] = implied.value }
        }

        var url: URL {
            if let givenURL { return givenURL }
            if let parsed = parsedURL.load() { return parsed.url }
            return parsedURL.storeIfNil(ParsedURL(urlText)).url
        }

        func copy() -> Storage {
            copy(url: givenURL ?? parsedURL.load()?.url, text: urlText, isPlainText: isPlainText)
        }

        func copy(url: URL) -> Storage {
            copy(url: url, text: url.absoluteString, isPlainText: false)
        }

        private func copy(url: URL?, text: String, isPlainText: Bool) -> Storage {
            Storage(
                urlText: text, url: url, isPlainText: isPlainText, method: method, headerFields: headerFields, body: body,
                options: options)
        }
    }

    /// A URL parsed from text that ``URLTextLayout/isPlainHTTPURL(_:)`` accepted.
    private final class ParsedURL: Sendable {
        let url: URL

        init(_ text: String) {
            // The grammar admits only text Foundation parses (PlainURLTextTests checks it
            // against `URL(string:)` over generated URLs), so this cannot fail for a text that
            // reached here.
            guard let url = URL(string: text) else {
                preconditionFailure("Curlew: a URL text its plain-URL check accepted does not parse")
            }
            self.url = url
        }
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
