import Foundation

/// A cookie of a HAR request (sent) or response (set).
public struct HARCookie: Codable, Sendable, Hashable {
    /// The cookie's name.
    public var name: String
    /// The cookie's value (redacted when Curlew records it: cookies are credentials).
    public var value: String
    /// The path attribute.
    public var path: String?
    /// The domain attribute.
    public var domain: String?
    /// When the cookie expires, as ISO 8601 text.
    public var expires: String?
    /// Whether the cookie is HTTP-only.
    public var httpOnly: Bool?
    /// Whether the cookie is sent over secure connections only.
    public var secure: Bool?
    /// A comment.
    public var comment: String?

    /// A cookie.
    public init(
        name: String, value: String, path: String? = nil, domain: String? = nil, expires: String? = nil,
        httpOnly: Bool? = nil, secure: Bool? = nil, comment: String? = nil
    ) {
        self.name = name
        self.value = value
        self.path = path
        self.domain = domain
        self.expires = expires
        self.httpOnly = httpOnly
        self.secure = secure
        self.comment = comment
    }
}
