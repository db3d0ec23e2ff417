import Foundation

/// Where one request's response is looked up, stored and coalesced.
///
/// A request that carries nothing identifying uses the resource's key, shared by every such
/// request of every session on the cache. A request that carries credentials or cookies
/// (``CacheIdentity``) gets a partition of its own: the resource's key, `#`, and a digest of
/// what it carries keyed with the cache's secret. So a stored response only ever answers a
/// request that says the same things about who sends it, and partitioned entries live in
/// memory only (the secret is the process's): neither a body meant for one user nor anything
/// derived from a credential is written to disk.
struct CacheKey: Sendable, Hashable {
    /// The resource key of the request (`CacheRules.key(_:)`): what invalidation names.
    let resource: String
    /// The key in the stores and of coalesced loads: `resource`, or `resource#digest`.
    let stored: String
    /// Whether the request carries credentials, so that RFC 9111 §3.5 applies to storing.
    let isCredentialed: Bool

    /// Whether the key is a partition of the resource's (a request that carries credentials or
    /// cookies).
    var isPartitioned: Bool { stored.utf8.count != resource.utf8.count }

    /// The key of `request`, partitioned by `identity` with `secret` unless it is anonymous.
    init(_ request: OutgoingRequest, identity: CacheIdentity, secret: [UInt8]) {
        resource = CacheRules.key(request)
        isCredentialed = identity.isCredentialed
        guard !identity.isAnonymous else {
            stored = resource
            return
        }
        // 128 bits of SHA-256(secret ‖ identity): the secret keeps a digest from being computed
        // (or compared) outside this cache; the identity's fields are length-prefixed.
        let digest = PeerCertificate.sha256(Data(secret + identity.material)).prefix(16)
        stored = resource + "#" + PeerCertificate.hex(Array(digest))
    }

    /// The resource key of a stored key (the part before `#`).
    static func resource(ofStored stored: String) -> Substring {
        stored[..<(stored.firstIndex(of: "#") ?? stored.endIndex)]
    }
}
