/// The `response` object of a HAR entry.
public struct HARResponse: Codable, Sendable, Hashable {
    /// The status code; 0 when no response arrived.
    public var status: Int
    /// The reason phrase, such as `OK`.
    public var statusText: String
    /// The HTTP version, such as `HTTP/1.1`.
    public var httpVersion: String
    /// The cookies set.
    public var cookies: [HARCookie]
    /// The header fields, in order.
    public var headers: [HARHeader]
    /// The body.
    public var content: HARContent
    /// The `Location` of a redirect, or empty.
    public var redirectURL: String
    /// The bytes of the head, or -1 when unknown.
    public var headersSize: Int
    /// The bytes of the body as it came over the wire, or -1 when unknown.
    public var bodySize: Int
    /// A comment.
    public var comment: String?

    /// A response.
    public init(
        status: Int, statusText: String, httpVersion: String, cookies: [HARCookie] = [], headers: [HARHeader] = [],
        content: HARContent, redirectURL: String = "", headersSize: Int = -1, bodySize: Int = -1, comment: String? = nil
    ) {
        self.status = status
        self.statusText = statusText
        self.httpVersion = httpVersion
        self.cookies = cookies
        self.headers = headers
        self.content = content
        self.redirectURL = redirectURL
        self.headersSize = headersSize
        self.bodySize = bodySize
        self.comment = comment
    }
}
