import Foundation

/// One exchange of a HAR log: a request, its response, and how long each phase took.
///
/// A request that got no response (the connection failed, or a timeout) has an entry too:
/// HAR has no failure entries, so Curlew writes the response with status 0, as browsers do,
/// and the reason in the custom field `_error` (``error``).
public struct HAREntry: Codable, Sendable, Hashable {
    /// The page the entry belongs to, when the log has pages.
    public var pageReference: String?
    /// When the request started.
    public var startedDateTime: Date
    /// The whole exchange in milliseconds: the sum of the ``timings`` that apply.
    public var time: Double
    /// The request as sent.
    public var request: HARRequest
    /// The response as received (status 0 when none arrived).
    public var response: HARResponse
    /// What the cache had before and after.
    public var cache: HARCache
    /// The phases of the exchange.
    public var timings: HARTimings
    /// The IP address of the server.
    public var serverIPAddress: String?
    /// An identifier of the connection (Curlew writes the server's port).
    public var connection: String?
    /// A comment.
    public var comment: String?
    /// Why no response arrived (the custom field `_error`), for a failed request.
    public var error: String?

    /// An entry.
    public init(
        pageReference: String? = nil, startedDateTime: Date, time: Double, request: HARRequest, response: HARResponse,
        cache: HARCache = HARCache(), timings: HARTimings, serverIPAddress: String? = nil, connection: String? = nil,
        comment: String? = nil, error: String? = nil
    ) {
        self.pageReference = pageReference
        self.startedDateTime = startedDateTime
        self.time = time
        self.request = request
        self.response = response
        self.cache = cache
        self.timings = timings
        self.serverIPAddress = serverIPAddress
        self.connection = connection
        self.comment = comment
        self.error = error
    }

    enum CodingKeys: String, CodingKey {
        case pageReference = "pageref"
        case startedDateTime, time, request, response, cache, timings, serverIPAddress, connection, comment
        case error = "_error"
    }

    /// Reads an entry; `startedDateTime` must be an ISO 8601 date and time.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        pageReference = try container.decodeIfPresent(String.self, forKey: .pageReference)
        let started = try container.decode(String.self, forKey: .startedDateTime)
        guard let date = HARDate.date(from: started) else {
            throw DecodingError.dataCorruptedError(
                forKey: .startedDateTime, in: container,
                debugDescription: "'\(started.prefix(64))' is not an ISO 8601 date and time")
        }
        startedDateTime = date
        time = try container.decode(Double.self, forKey: .time)
        request = try container.decode(HARRequest.self, forKey: .request)
        response = try container.decode(HARResponse.self, forKey: .response)
        // Required by the spec, but some writers leave it out; an empty one means "unknown".
        cache = try container.decodeIfPresent(HARCache.self, forKey: .cache) ?? HARCache()
        timings = try container.decode(HARTimings.self, forKey: .timings)
        serverIPAddress = try container.decodeIfPresent(String.self, forKey: .serverIPAddress)
        connection = try container.decodeIfPresent(String.self, forKey: .connection)
        comment = try container.decodeIfPresent(String.self, forKey: .comment)
        error = try container.decodeIfPresent(String.self, forKey: .error)
    }

    /// Writes the entry, `startedDateTime` as ISO 8601 with milliseconds.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(pageReference, forKey: .pageReference)
        try container.encode(HARDate.string(from: startedDateTime), forKey: .startedDateTime)
        try container.encode(time, forKey: .time)
        try container.encode(request, forKey: .request)
        try container.encode(response, forKey: .response)
        try container.encode(cache, forKey: .cache)
        try container.encode(timings, forKey: .timings)
        try container.encodeIfPresent(serverIPAddress, forKey: .serverIPAddress)
        try container.encodeIfPresent(connection, forKey: .connection)
        try container.encodeIfPresent(comment, forKey: .comment)
        try container.encodeIfPresent(error, forKey: .error)
    }
}
