import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Something that describes a whole request — Alamofire's `URLRequestConvertible`, for APIs
/// organised as a router enum:
///
/// ```swift
/// enum GitHub: EndpointConvertible {
///     case user(String)
///     case search(String, page: Int)
///     case createIssue(repository: String, NewIssue)
///
///     static let base = Endpoint("https://api.github.com")
///         .with(header: "Accept", value: "application/vnd.github+json")
///
///     func asEndpoint() throws -> Endpoint {
///         switch self {
///         case .user(let login):
///             Endpoint("users/\(login)", base: Self.base)
///         case .search(let query, let page):
///             Endpoint("search/repositories", base: Self.base)
///                 .with(parameters: ["q": query, "page": page], encoding: .query)
///         case .createIssue(let repository, let issue):
///             Endpoint("repos/\(repository)/issues", base: Self.base, method: .post)
///                 .with(parameters: issue, encoder: .json)
///         }
///     }
/// }
///
/// let user = try await session.request(GitHub.user("octocat")).validate().decode(User.self)
/// ```
///
/// `session.request`, `session.download` and the `upload` shortcuts take any conforming value.
/// An error thrown by ``asEndpoint()`` fails the request when it is consumed: a
/// ``CurlewError`` as it is, anything else as ``CurlewError/Kind/invalidRequest`` with the
/// error as ``CurlewError/underlying``.
public protocol EndpointConvertible: Sendable {
    /// The request to make.
    func asEndpoint() throws -> Endpoint
}

extension Endpoint: EndpointConvertible {
    /// The endpoint itself.
    public func asEndpoint() -> Endpoint { self }
}

extension OutgoingRequest: EndpointConvertible {
    /// An endpoint with this request's URL, method, header fields, body and options.
    public func asEndpoint() -> Endpoint { Endpoint(self) }
}

extension URLRequest: EndpointConvertible {
    /// An endpoint converted as ``OutgoingRequest/init(_:)`` converts a `URLRequest`.
    public func asEndpoint() throws -> Endpoint { Endpoint(try OutgoingRequest(self)) }
}
