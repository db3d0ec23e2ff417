@testable import Curlew
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import Testing

/// The rules of ``Endpoint``: joining URLs, what a dependent inherits (one test per row of the
/// table in the documentation), builders returning new values, and bad input kept for when the
/// request is made. No network.
@Suite("Endpoint values and their merge rules")
struct EndpointTests {
    private static let api = Endpoint("https://api.example.com/v1")

    private func request(_ endpoint: Endpoint) throws -> OutgoingRequest {
        try endpoint.outgoingRequest()
    }

    private func failure(_ endpoint: Endpoint) -> CurlewError? {
        do {
            _ = try endpoint.outgoingRequest()
            return nil
        } catch {
            return error
        }
    }

    // MARK: URL row

    @Test(arguments: [
        ("https://api.example.com/v1", "users/42", "https://api.example.com/v1/users/42"),
        ("https://api.example.com/v1/", "users/42", "https://api.example.com/v1/users/42"),
        ("https://api.example.com/v1", "/users/42", "https://api.example.com/v1/users/42"),
        ("https://api.example.com/v1/", "/users/42", "https://api.example.com/v1/users/42"),
        ("https://api.example.com", "users", "https://api.example.com/users"),
        ("https://api.example.com/v1", "users/", "https://api.example.com/v1/users/"),
        ("https://api.example.com/v1", "", "https://api.example.com/v1"),
        ("https://api.example.com/v1?key=k", "users?page=2", "https://api.example.com/v1/users?key=k&page=2"),
        ("https://api.example.com/v1?key=k", "users", "https://api.example.com/v1/users?key=k"),
        ("https://api.example.com/v1#top", "users", "https://api.example.com/v1/users"),
        ("https://api.example.com/v1", "https://other.example.org/x", "https://other.example.org/x"),
        ("https://api.example.com/v1", "v2:batchGet", "https://api.example.com/v1/v2:batchGet"),
    ])
    func pathsJoinWithOneSlash(base: String, path: String, expected: String) {
        #expect(Endpoint.join(base: base, path: path) == expected)
    }

    @Test func nestedBasesJoinInOrder() throws {
        let users = Endpoint("users", base: Self.api)
        let user = Endpoint("42/repos", base: users)
        #expect(try request(user).url.absoluteString == "https://api.example.com/v1/users/42/repos")
    }

    @Test func aURLThatDoesNotParseFailsWhenTheRequestIsMade() {
        #expect(failure(Endpoint("not a url"))?.kind == .invalidURL)
        #expect(failure(Endpoint("ftp://example.com/file"))?.kind == .unsupportedScheme)
    }

    // MARK: Method and body rows

    @Test func methodIsNotInherited() throws {
        let base = Endpoint("https://api.example.com", method: .post)
        #expect(try request(Endpoint("users", base: base)).method == .get)
        #expect(try request(Endpoint("users", base: base, method: .put)).method == .put)
        #expect(try request(base.with(method: .delete)).method == .delete)
    }

    @Test func bodyIsNotInherited() throws {
        let base = Self.api.with(body: .data(Data("base".utf8)))
        #expect(try request(Endpoint("users", base: base)).body == nil)
        let baseBody = try request(base).body
        guard case .data(let own)? = baseBody?.storage else {
            Issue.record("the base lost its own body")
            return
        }
        #expect(own == Data("base".utf8))
    }

    // MARK: Header row

    @Test func headersAreInheritedAndTheDependentsWinByName() throws {
        var base = Self.api.with(header: "Accept", value: "application/json").with(header: "X-Client", value: "curlew")
        base.headerFields.append(HTTPField(name: HTTPField.Name("X-Many")!, value: "1"))
        base.headerFields.append(HTTPField(name: HTTPField.Name("X-Many")!, value: "2"))
        let dependent = Endpoint("users", base: base)
            .with(header: "accept", value: "text/plain")
            .with(headers: ["X-Many": "3"])
        let fields = try request(dependent).headerFields
        #expect(fields[values: .accept] == ["text/plain"])
        #expect(fields[values: HTTPField.Name("X-Client")!] == ["curlew"])
        #expect(fields[values: HTTPField.Name("X-Many")!] == ["3"])
        // The base is unchanged by what was derived from it.
        #expect(try request(base).headerFields[values: .accept] == ["application/json"])
        #expect(try request(base).headerFields[values: HTTPField.Name("X-Many")!] == ["1", "2"])
    }

    @Test func headerFieldsGivenTogetherKeepEveryValueOfAName() throws {
        var fields = HTTPFields()
        fields.append(HTTPField(name: .accept, value: "a/b"))
        fields.append(HTTPField(name: .accept, value: "c/d"))
        let endpoint = Self.api.with(header: "Accept", value: "x/y").with(headers: RequestHeaders(fields))
        #expect(try request(endpoint).headerFields[values: .accept] == ["a/b", "c/d"])
    }

    @Test(arguments: [("X-Bad", "a\r\nInjected: 1"), ("X-Bad", "a\nb"), ("Bad Name", "v"), ("X-Nul", "a\u{0}b")])
    func badHeadersFailTheRequestNotTheBuilder(name: String, value: String) {
        #expect(failure(Self.api.with(header: name, value: value))?.kind == .invalidHeader)
        #expect(failure(Self.api.with(headers: [name: value]))?.kind == .invalidHeader)
        #expect(failure(Endpoint("https://example.com", headers: [name: value]))?.kind == .invalidHeader)
        // Inherited by dependents, and the first bad input is the one reported.
        let dependent = Endpoint("x", base: Self.api.with(header: name, value: value)).with(header: "Also Bad", value: "v")
        #expect(failure(dependent)?.message.contains("Also Bad") == false)
    }

    // MARK: Cookie row

    @Test func cookiesGoInOneFieldAndTheDependentsWinByName() throws {
        let base = Self.api.with(cookie: "session", value: "s1").with(cookie: "theme", value: "dark")
        let dependent = Endpoint("users", base: base).with(cookie: "session", value: "s2").with(cookie: "lang", value: "en")
        #expect(dependent.cookies.map(\.name) == ["session", "theme", "lang"])
        let values = try request(dependent).headerFields[values: .cookie]
        #expect(values.joined(separator: "; ") == "session=s2; theme=dark; lang=en")
        #expect(try request(base).headerFields[values: .cookie].joined(separator: "; ") == "session=s1; theme=dark")
    }

    @Test func aCookieFromTheJarsTypeSendsItsNameAndValue() throws {
        let cookie = Cookie(name: "id", value: "7", domain: "example.com")
        #expect(try request(Self.api.with(cookie: cookie.name, value: cookie.value)).headerFields[values: .cookie] == ["id=7"])
    }

    @Test(arguments: [("", "v"), ("a=b", "v"), ("a;b", "v"), ("a b", "v"), ("a", "x;y"), ("a", "x\r\ny")])
    func badCookiesFailTheRequest(name: String, value: String) {
        #expect(failure(Self.api.with(cookie: name, value: value))?.kind == .invalidHeader)
    }

    // MARK: Parameter rows

    @Test func parameterSetsOfTheBaseComeFirstAndTheDependentsWinByKey() throws {
        let base = Self.api
            .with(parameters: ["page": 1, "key": "k"], encoding: .query)
            .with(parameters: ["name": "base", "role": "user"], encoding: .json)
        let dependent = Endpoint("users", base: base, method: .post)
            .with(parameters: ["page": 2], encoding: .query)
            .with(parameters: ["name": "own"], encoding: .json)
        let made = try request(dependent)
        let madeBody = made.body
        let query = URLComponents(url: made.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(Set(query.map { "\($0.name)=\($0.value ?? "")" }) == ["page=2", "key=k"])
        guard case .data(let body)? = madeBody?.storage else {
            Issue.record("no JSON body")
            return
        }
        #expect(String(decoding: body, as: UTF8.self) == #"{"name":"own","role":"user"}"#)
    }

    @Test func aLaterBodyEncodingReplacesAnEarlierOne() throws {
        let base = Self.api.with(parameters: ["a": 1], encoding: .json)
        let made = try request(Endpoint("x", base: base, method: .post).with(parameters: ["b": "2"], encoding: .form))
        let madeBody = made.body
        guard case .data(let body)? = madeBody?.storage else {
            Issue.record("no body")
            return
        }
        #expect(String(decoding: body, as: UTF8.self) == "b=2")
        #expect(made.headerFields[.contentType]?.hasPrefix("application/x-www-form-urlencoded") == true)
    }

    private struct Filter: Encodable, Sendable {
        let state: String
        let labels: [String]
    }

    @Test func encodableParametersApplyAfterTheSetsInOrder() throws {
        let base = Self.api.with(parameters: Filter(state: "open", labels: ["bug"]), encoder: .urlEncodedForm(destination: .query))
        let dependent = Endpoint("issues", base: base)
            .with(parameters: ["page": 3], encoding: .query)
            .with(parameters: ["sort": "created"], encoder: .urlEncodedForm(destination: .query))
        let made = try request(dependent)
        let query = made.url.query ?? ""
        #expect(query.hasPrefix("page=3&"), "\(query)")
        let state = try #require(query.range(of: "state=open"))
        let sort = try #require(query.range(of: "sort=created"))
        #expect(state.lowerBound < sort.lowerBound, "the base's Encodable parameters go first: \(query)")
        #expect(query.contains("labels%5B%5D=bug") || query.contains("labels[]=bug"), "\(query)")
    }

    @Test func parametersThatCannotBeEncodedFailTheRequest() {
        let endpoint = Self.api.with(parameters: ["when": Date()], encoding: .json)
        #expect(failure(endpoint)?.kind == .invalidRequest)
    }

    // MARK: Interceptor row

    private struct Tag: RequestInterceptor {
        let name: String
        func adapt(_ request: OutgoingRequest, for session: Session) async throws -> OutgoingRequest {
            var request = request
            request.headerFields.append(HTTPField(name: HTTPField.Name("X-Trace")!, value: name))
            return request
        }
    }

    @Test func interceptorsOfTheBaseComeFirst() {
        let base = Self.api.with(interceptors: [Tag(name: "base")])
        let dependent = Endpoint("x", base: base).with(interceptors: [Tag(name: "own1"), Tag(name: "own2")])
        #expect(dependent.interceptors.compactMap { ($0 as? Tag)?.name } == ["base", "own1", "own2"])
        #expect(base.interceptors.count == 1)
    }

    // MARK: Timeout and option rows

    @Test func timeoutsAreInheritedFieldByField() throws {
        let base = Self.api.with(timeouts: Timeouts(connect: .seconds(3), idle: .seconds(20)))
        let dependent = Endpoint("x", base: base).with(timeouts: Timeouts(total: .seconds(9))).with(timeouts: Timeouts(idle: .seconds(5)))
        let timeouts = try request(dependent).options.timeouts
        #expect(timeouts.connect == .seconds(3))
        #expect(timeouts.total == .seconds(9))
        #expect(timeouts.idle == .seconds(5))
        #expect(try request(base).options.timeouts.total == nil)
    }

    @Test func optionsAreInheritedFieldByField() throws {
        var baseOptions = RequestOptions()
        baseOptions.maximumBodySize = 10
        baseOptions.httpVersion = .http1_1
        baseOptions.unixSocketPath = "/tmp/base.sock"
        var own = RequestOptions()
        own.maximumBodySize = 20
        own.expectContinue = .largeBodies
        let options = try request(Endpoint("x", base: Self.api.with(options: baseOptions)).with(options: own)).options
        #expect(options.maximumBodySize == 20)
        #expect(options.httpVersion == .http1_1)
        #expect(options.unixSocketPath == "/tmp/base.sock")
        #expect(options.expectContinue == .largeBodies)
    }

    /// Every optional field of ``RequestOptions`` set on the base survives a dependent that sets
    /// none: a field added to `RequestOptions` but forgotten in the merge fails here.
    @Test func everyOptionFieldIsMerged() throws {
        var full = RequestOptions()
        full.timeouts = Timeouts(connect: .seconds(1), total: .seconds(2), idle: .seconds(3), minimumSpeed: MinimumSpeed(bytesPerSecond: 1, over: .seconds(4)))
        full.redirectPolicy = RedirectPolicy.doNotFollow
        full.maximumBodySize = 1
        full.httpVersion = .http1_1
        full.proxy = ProxyConfiguration.direct
        full.httpCredential = HTTPCredential(username: "u", password: "p")
        full.unixSocketPath = "/tmp/s"
        full.expectContinue = .never
        full.cachePolicy = .reloadIgnoringCache
        full.responseCacher = .doNotCache
        full.waitsForConnectivity = .seconds(5)
        full.cookieStorage = .disabled
        full.connectTo = [HostAndPort("a.test", port: 443): HostAndPort("127.0.0.1", port: 8443)]
        full.ipVersion = .ipv4Only
        full.wireTrace = .off
        full.http2StreamWeight = 32
        func unset(_ options: RequestOptions) -> [String] {
            Mirror(reflecting: options.values).children.compactMap { child in
                guard let label = child.label else { return nil }
                let value = Mirror(reflecting: child.value)
                if value.displayStyle == .optional, value.children.isEmpty { return label }
                if let timeouts = child.value as? Timeouts {
                    return Mirror(reflecting: timeouts).children.contains { Mirror(reflecting: $0.value).children.isEmpty } ? label : nil
                }
                return nil
            }
        }
        #expect(unset(full).isEmpty, "the test sets every field: \(unset(full))")
        #expect(unset(RequestOptions().merged(over: full)).isEmpty)
        #expect(unset(Endpoint("x", base: Self.api.with(options: full)).options).isEmpty)
    }

    // MARK: Values

    @Test func buildersReturnNewValuesAndLeaveTheOriginal() throws {
        let original = Self.api
        _ = original.with(header: "A", value: "1").with(parameters: ["q": 1]).with(cookie: "c", value: "1")
            .with(interceptors: [Tag(name: "t")]).with(timeouts: Timeouts(total: .seconds(1))).with(method: .post).with(body: .data(Data()))
        let made = try request(original)
        #expect(made.headerFields.isEmpty)
        #expect(made.url.query == nil)
        #expect(made.method == .get)
        #expect(made.body == nil)
        #expect(original.interceptors.isEmpty)
        #expect(made.options.timeouts.total == nil)
    }

    @Test func anOutgoingRequestAndAURLRequestConvert() throws {
        var outgoing = OutgoingRequest(url: URL(string: "https://example.com/a?b=1")!, method: .patch)
        outgoing.headerFields[.accept] = "x/y"
        outgoing.options.maximumBodySize = 5
        let fromOutgoing = try request(outgoing.asEndpoint())
        #expect(fromOutgoing.url.absoluteString == "https://example.com/a?b=1")
        #expect(fromOutgoing.method == .patch)
        #expect(fromOutgoing.headerFields[.accept] == "x/y")
        #expect(fromOutgoing.options.maximumBodySize == 5)
        var urlRequest = URLRequest(url: URL(string: "https://example.com/u")!)
        urlRequest.httpMethod = "PUT"
        #expect(try request(try urlRequest.asEndpoint()).method == .put)
    }
}
