/// The `request` object of a HAR entry.
public struct HARRequest: Codable, Sendable, Hashable {
    /// The method, such as `GET`.
    public var method: String
    /// The absolute URL, fragment removed (secrets redacted when Curlew records it).
    public var url: String
    /// The HTTP version, such as `HTTP/1.1`.
    public var httpVersion: String
    /// The cookies sent.
    public var cookies: [HARCookie]
    /// The header fields, in order.
    public var headers: [HARHeader]
    /// The query's parameters, decoded.
    public var queryString: [HARQueryParameter]
    /// The body, when there is one and it was recorded.
    public var postData: HARPostData?
    /// The bytes of the head, or -1 when unknown.
    public var headersSize: Int
    /// The bytes of the body, or -1 when unknown.
    public var bodySize: Int
    /// A comment.
    public var comment: String?

    /// A request.
    public init(
        method: String, url: String, httpVersion: String, cookies: [HARCookie] = [], headers: [HARHeader] = [],
        queryString: [HARQueryParameter] = [], postData: HARPostData? = nil, headersSize: Int = -1, bodySize: Int = -1,
        comment: String? = nil
    ) {
        self.method = method
        self.url = url
        self.httpVersion = httpVersion
        self.cookies = cookies
        self.headers = headers
        self.queryString = queryString
        self.postData = postData
        self.headersSize = headersSize
        self.bodySize = bodySize
        self.comment = comment
    }
}
