/// A cache's entry as HAR describes it, before or after a request.
public struct HARCacheState: Codable, Sendable, Hashable {
    /// When the entry expires, as ISO 8601 text.
    public var expires: String?
    /// When the entry was last used, as ISO 8601 text.
    public var lastAccess: String
    /// The entry's entity tag.
    public var eTag: String
    /// How many times the entry was used.
    public var hitCount: Int
    /// A comment.
    public var comment: String?

    /// A cache entry.
    public init(expires: String? = nil, lastAccess: String, eTag: String, hitCount: Int, comment: String? = nil) {
        self.expires = expires
        self.lastAccess = lastAccess
        self.eTag = eTag
        self.hitCount = hitCount
        self.comment = comment
    }
}
