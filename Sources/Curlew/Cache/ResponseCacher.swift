import Foundation
import HTTPTypes

/// What the cache stores, like Alamofire's `ResponseCacher`: set it on the ``HTTPCache`` or per
/// request (``RequestOptions/responseCacher``). It runs only for responses the protocol allows
/// to be stored.
public struct ResponseCacher: Sendable {
    /// The choice for one response.
    public enum Behavior: Sendable {
        /// Store the response as it is.
        case cache
        /// Do not store it.
        case doNotCache
        /// Store the head this closure returns (for example with a longer `Cache-Control`), or
        /// nothing when it returns nil. The body is stored as it arrived.
        case modify(@Sendable (OutgoingRequest, HTTPResponse) -> HTTPResponse?)
    }

    /// The behaviour.
    public let behavior: Behavior

    /// Creates a cacher.
    public init(behavior: Behavior) { self.behavior = behavior }

    /// Stores responses as they are (the default).
    public static let cache = ResponseCacher(behavior: .cache)
    /// Stores nothing.
    public static let doNotCache = ResponseCacher(behavior: .doNotCache)

    /// The head to store for `response`, or nil.
    func head(for request: OutgoingRequest, response: HTTPResponse) -> HTTPResponse? {
        switch behavior {
        case .cache: return response
        case .doNotCache: return nil
        case .modify(let change): return change(request, response)
        }
    }
}
