import Foundation

/// What a stub answers: a status, header fields and a body (whole, or in pieces with pauses),
/// or a network failure, possibly after part of the body.
///
/// ```swift
/// stubs.register(.get, "https://api.example.com/items", .json(#"[{"id":1}]"#))
/// stubs.register(.get, "https://api.example.com/big", .chunks([StubChunk(part1), StubChunk(part2, after: .milliseconds(50))]))
/// stubs.register(.get, "https://api.example.com/flaky", .failure(.connectionReset))
/// ```
///
/// Unless the headers name a `Content-Length` or a `Transfer-Encoding`, the stub declares the
/// body's length, as most servers do. A `HEAD` request gets the head without the body.
public struct StubResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The header fields, in order; a name may repeat (`Set-Cookie`).
    public var headers: [StubHeader]
    /// The body, as pieces sent one after another.
    public var chunks: [StubChunk]
    /// How long the stub waits before it sends the head.
    public var delay: Duration = .zero
    /// A failure instead of a response (nil `afterBodyBytes`), or after that many body bytes.
    var failure: (failure: StubFailure, afterBodyBytes: Int?)?

    /// A response with `status`, `headers` and a whole `body`.
    public init(status: Int, headers: [StubHeader] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        chunks = body.isEmpty ? [] : [StubChunk(body)]
    }

    /// A response with `status`, header fields and a whole body.
    public static func status(_ status: Int, headers: KeyValuePairs<String, String> = [:], body: Data = Data()) -> StubResponse {
        StubResponse(status: status, headers: headers.map { StubHeader($0.key, $0.value) }, body: body)
    }

    /// A `text/plain; charset=utf-8` response.
    public static func text(_ text: String, status: Int = 200, headers: KeyValuePairs<String, String> = [:]) -> StubResponse {
        StubResponse(status: status, headers: typed("text/plain; charset=utf-8", headers), body: Data(text.utf8))
    }

    /// An `application/json` response whose body is `json`, as written.
    public static func json(_ json: String, status: Int = 200, headers: KeyValuePairs<String, String> = [:]) -> StubResponse {
        StubResponse(status: status, headers: typed("application/json", headers), body: Data(json.utf8))
    }

    /// An `application/json` response with `value` encoded by `encoder`.
    public static func json(
        encoding value: some Encodable, status: Int = 200, headers: KeyValuePairs<String, String> = [:],
        encoder: JSONEncoder = JSONEncoder()
    ) throws -> StubResponse {
        StubResponse(status: status, headers: typed("application/json", headers), body: try encoder.encode(value))
    }

    /// A body sent in `chunks`, each after its own delay: for progress events, slow servers
    /// and backpressure (the stub sends the next piece only once the transfer took the last).
    public static func chunks(
        _ chunks: [StubChunk], status: Int = 200, headers: KeyValuePairs<String, String> = [:]
    ) -> StubResponse {
        var response = StubResponse(status: status, headers: headers.map { StubHeader($0.key, $0.value) })
        response.chunks = chunks
        return response
    }

    /// A redirect to `location` (`302` unless `status` says otherwise).
    public static func redirect(to location: String, status: Int = 302) -> StubResponse {
        StubResponse(status: status, headers: [StubHeader("Location", location)])
    }

    /// A network failure instead of any response.
    public static func failure(_ failure: StubFailure) -> StubResponse {
        var response = StubResponse(status: 0)
        response.failure = (failure, nil)
        return response
    }

    /// This response, cut by `failure` after `bytes` bytes of its body (the head still declares
    /// the whole length): a connection reset or closed mid-body.
    public func failing(with failure: StubFailure, afterBodyBytes bytes: Int) -> StubResponse {
        var response = self
        response.failure = (failure, max(0, bytes))
        return response
    }

    /// This response, sent after `delay`.
    public func delayed(by delay: Duration) -> StubResponse {
        var response = self
        response.delay = delay
        return response
    }

    /// This response with one more header field.
    public func header(_ name: String, _ value: String) -> StubResponse {
        var response = self
        response.headers.append(StubHeader(name, value))
        return response
    }

    private static func typed(_ type: String, _ headers: KeyValuePairs<String, String>) -> [StubHeader] {
        let fields = headers.map { StubHeader($0.key, $0.value) }
        let named = fields.contains { $0.name.lowercased() == "content-type" }
        return named ? fields : [StubHeader("Content-Type", type)] + fields
    }
}

/// One header field of a ``StubResponse``.
public struct StubHeader: Sendable, Hashable {
    /// The field name, as sent.
    public var name: String
    /// The field value.
    public var value: String

    /// A field `name: value`.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}
