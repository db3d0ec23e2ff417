/// The `cache` object of a HAR entry: the cache's entry before and after the request; both
/// nil when unknown (as Curlew writes it).
public struct HARCache: Codable, Sendable, Hashable {
    /// The cache's entry before the request.
    public var beforeRequest: HARCacheState?
    /// The cache's entry after the request.
    public var afterRequest: HARCacheState?
    /// A comment.
    public var comment: String?

    /// A cache object.
    public init(beforeRequest: HARCacheState? = nil, afterRequest: HARCacheState? = nil, comment: String? = nil) {
        self.beforeRequest = beforeRequest
        self.afterRequest = afterRequest
        self.comment = comment
    }
}
