import Foundation
import HTTPTypes

/// A request as a value: a URL (or a path under a base endpoint), a method, header fields,
/// parameter sets, cookies, a body, interceptors and options — built once, kept in a `let`,
/// derived from with `with(…)` builders and run as often as needed.
///
/// ```swift
/// let api = Endpoint("https://api.example.com/v1")
///     .with(header: "Accept", value: "application/json")
///     .with(interceptors: [tokenAdapter])
/// let search = Endpoint("search/repositories", base: api)
///     .with(parameters: ["q": "curl", "page": 2], encoding: .query)
/// let repos = try await session.request(search).validate().decode([Repository].self)
/// ```
///
/// Every builder returns a new value; an endpoint never changes under another one that was
/// made from it. Bad input given to a builder (a header value with CR or LF, a cookie with a
/// `;`, a URL that does not parse) does not throw there: the request made from the endpoint
/// fails with that error when it is consumed, as for every other way of making a request.
///
/// ## Base and dependent endpoints
///
/// `Endpoint(path, base: base)` inherits from `base`, as HTTPTransport's dependent requests do:
///
/// | What | Rule |
/// | --- | --- |
/// | URL | `path` is appended to the base's URL with one `/` between; a base query comes first, then the path's. An absolute URL (`scheme://…`) replaces the base's. |
/// | Method | Not inherited: the dependent's own (GET unless given). |
/// | Header fields | Inherited; a field the dependent sets replaces every base field of that name. |
/// | Cookies | Inherited; a cookie of the same name replaces the base's. All go in one `Cookie` field. |
/// | Parameter sets | The base's first, then the dependent's, merged by ``RequestParameters``: by encoding, later keys win, the last body encoding wins. |
/// | Encodable parameters | The base's first, then the dependent's, each applied in order after the parameter sets. |
/// | Body | Not inherited. |
/// | Interceptors | The base's first, then the dependent's (after the session's, before the request's own). |
/// | Timeouts | Inherited field by field; a field the dependent sets wins. |
/// | Options | Inherited field by field (redirect policy, maximum body size, HTTP version, proxy, credential, Unix socket, `Expect`); a field the dependent sets wins. |
public struct Endpoint: Sendable {
    /// The URL's text, after joining with the base's; checked when a request is made from it.
    public var url: String
    /// The method; GET unless set (uploads use POST unless a method was set).
    public var method: HTTPRequest.Method {
        get { explicitMethod ?? .get }
        set { explicitMethod = newValue }
    }
    /// The header fields.
    public var headerFields: HTTPFields
    /// Cookies sent in the request's one `Cookie` field, in order, without duplicate names.
    public private(set) var cookies: [(name: String, value: String)] = []
    /// The untyped parameter sets.
    public var parameters: RequestParameters
    /// The body, if any; parameter sets with a body encoding replace it.
    public var body: RequestBody?
    /// Interceptors that run after the session's and before the request's own.
    public var interceptors: [any RequestInterceptor]
    /// Per-request settings (timeouts among them).
    public var options: RequestOptions

    /// The method, when one was given (uploads default to POST otherwise).
    var explicitMethod: HTTPRequest.Method?
    /// Typed parameters with their encoders, applied in order after the parameter sets.
    var encodings: [EncodableParameters] = []
    /// The first bad input a builder was given; the request fails with it.
    var invalidInput: CurlewError?

    /// An endpoint at `url`. Header names or values that cannot go on the wire fail the
    /// request with ``CurlewError/Kind/invalidHeader``.
    public init(_ url: String, method: HTTPRequest.Method? = nil, headers: RequestHeaders = [:]) {
        self.url = url
        self.explicitMethod = method
        self.headerFields = HTTPFields()
        self.parameters = []
        self.body = nil
        self.interceptors = []
        self.options = RequestOptions()
        if !headers.isEmpty { self = with(headers: headers) }
    }

    /// An endpoint at `url`.
    public init(_ url: URL, method: HTTPRequest.Method? = nil, headers: RequestHeaders = [:]) {
        self.init(url.absoluteString, method: method, headers: headers)
    }

    /// An endpoint at `path` under `base`, inheriting its header fields, cookies, parameters,
    /// interceptors, timeouts and options (see the table in ``Endpoint``).
    ///
    /// ```swift
    /// let user = Endpoint("users/42", base: api)   // https://api.example.com/v1/users/42
    /// ```
    public init(_ path: String, base: Endpoint, method: HTTPRequest.Method? = nil) {
        self = base
        url = Endpoint.join(base: base.url, path: path)
        explicitMethod = method
        body = nil
    }

    /// An endpoint for a request built in full: its URL, method, header fields, body and
    /// options carry over. Users say it as `request.asEndpoint()`.
    init(_ request: OutgoingRequest) {
        self.init(request.url, method: request.method)
        headerFields = request.headerFields
        body = request.body
        options = request.options
    }
}

// MARK: - Builders

extension Endpoint {
    /// This endpoint with another method.
    public func with(method: HTTPRequest.Method) -> Endpoint {
        var copy = self
        copy.explicitMethod = method
        return copy
    }

    /// This endpoint with the header `name` set to `value`, replacing every field of that name.
    /// A name or value that cannot go on the wire fails the request with
    /// ``CurlewError/Kind/invalidHeader``.
    public func with(header name: String, value: String) -> Endpoint {
        var copy = self
        do throws(CurlewError) {
            let field = try HTTPField.validated(name: name, value: value, url: nil)
            copy.headerFields[fields: field.name] = [field]
        } catch {
            copy.record(error)
        }
        return copy
    }

    /// This endpoint with these header fields: each name given replaces the endpoint's fields
    /// of that name (in any case), and the fields of one name keep their order. A name or
    /// value that cannot go on the wire fails the request with
    /// ``CurlewError/Kind/invalidHeader``.
    public func with(headers: RequestHeaders) -> Endpoint {
        var copy = self
        do throws(CurlewError) {
            let fields = try headers.fields(for: nil)
            var replaced = Set<HTTPField.Name>()
            for field in fields where replaced.insert(field.name).inserted {
                copy.headerFields[fields: field.name] = fields[fields: field.name]
            }
        } catch {
            copy.record(error)
        }
        return copy
    }

    /// This endpoint with one more parameter set; see the merge rules of ``RequestParameters``.
    public func with(parameters: Parameters, encoding: ParameterSet.Encoding = .query) -> Endpoint {
        with(parameters: [ParameterSet(parameters, encoding: encoding)])
    }

    /// This endpoint with more parameter sets, after its own; see the merge rules of
    /// ``RequestParameters``.
    public func with(parameters sets: RequestParameters) -> Endpoint {
        var copy = self
        copy.parameters = parameters.appending(sets)
        return copy
    }

    /// This endpoint with `Encodable` parameters that `encoder` writes into the query or the
    /// body, after the parameter sets:
    ///
    /// ```swift
    /// Endpoint("users", base: api, method: .post).with(parameters: NewUser(name: "Ann"), encoder: .json)
    /// ```
    public func with<P: Encodable & Sendable>(parameters: P, encoder: some ParameterEncoder) -> Endpoint {
        var copy = self
        copy.encodings.append(EncodableParameters(parameters, encoder: encoder))
        return copy
    }

    /// This endpoint with a body. Parameter sets with a body encoding replace it when the
    /// request is made.
    public func with(body: RequestBody?) -> Endpoint {
        var copy = self
        copy.body = body
        return copy
    }

    /// This endpoint with more interceptors, after its own.
    public func with(interceptors more: [any RequestInterceptor]) -> Endpoint {
        var copy = self
        copy.interceptors += more
        return copy
    }

    /// This endpoint with these timeouts; each field given replaces the endpoint's.
    public func with(timeouts: Timeouts) -> Endpoint {
        var copy = self
        copy.options.timeouts = timeouts.merged(over: options.timeouts)
        return copy
    }

    /// This endpoint with these options; each field given (not nil) replaces the endpoint's,
    /// timeouts field by field.
    public func with(options overrides: RequestOptions) -> Endpoint {
        var copy = self
        copy.options = overrides.merged(over: options)
        return copy
    }

    /// This endpoint with a cookie, sent in the request's one `Cookie` field after any of the
    /// session's cookie jar. A cookie of the same name is replaced. A name that is empty or
    /// holds `=`, `;`, a space or a control character, or a value with `;` or a control
    /// character, fails the request with ``CurlewError/Kind/invalidHeader``.
    public func with(cookie name: String, value: String) -> Endpoint {
        var copy = self
        guard CookieRules.isSendable(name: name, value: value) else {
            copy.record(CurlewError(.invalidHeader, "the cookie \(name.debugDescription) cannot be sent: a bad name, or a value with ';' or control characters"))
            return copy
        }
        if let index = copy.cookies.firstIndex(where: { $0.name == name }) {
            copy.cookies[index].value = value
        } else {
            copy.cookies.append((name, value))
        }
        return copy
    }

    /// Keeps the first bad input, which the request fails with.
    private mutating func record(_ error: CurlewError) {
        if invalidInput == nil { invalidInput = error }
    }
}
