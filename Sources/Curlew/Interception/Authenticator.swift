import Foundation
import HTTPTypes

/// The scheme-specific half of authentication: how a credential goes on a request, how it is
/// refreshed, and how a rejection is recognised. ``AuthenticationInterceptor`` supplies the
/// rest — single-flight refresh, credential versions, proactive refresh, the refresh window
/// and scoping — for any scheme: OAuth2 (``OAuth2TokenRefresher``), API keys, custom tokens.
///
/// ```swift
/// struct APIKeyAuthenticator: Authenticator {
///     func apply(_ credential: APIKey, to request: inout OutgoingRequest) {
///         request.headerFields[HTTPField.Name("X-API-Key")!] = credential.key
///     }
///     func refresh(_ credential: APIKey, for session: Session) async throws -> APIKey {
///         try await session.uninterceptedRequest(rotateRequest).decode(APIKey.self)
///     }
/// }
/// ```
public protocol Authenticator: Sendable {
    /// The credential type.
    associatedtype Credential: AuthenticationCredential

    /// Puts the credential on the request, replacing any earlier value (so that applying
    /// twice gives the same request).
    func apply(_ credential: Credential, to request: inout OutgoingRequest)

    /// Obtains a new credential. The interceptor calls it at most once at a time; every
    /// request waiting for a credential waits for this call. Requests made here must not pass
    /// through the interceptor: use ``Session/uninterceptedRequest(_:)``.
    func refresh(_ credential: Credential, for session: Session) async throws -> Credential

    /// Whether a failed attempt failed because the server rejected the credential. The
    /// default is a 401 status.
    func didRequest(_ request: OutgoingRequest, failDueToAuthenticationError error: CurlewError) -> Bool

    /// Whether `request` was sent with `credential` (rather than an older one). The default
    /// applies `credential` to a copy and compares the URL and header fields.
    func isRequest(_ request: OutgoingRequest, authenticatedWith credential: Credential) -> Bool
}

extension Authenticator {
    /// A 401 status.
    public func didRequest(_ request: OutgoingRequest, failDueToAuthenticationError error: CurlewError) -> Bool {
        error.status?.code == 401
    }

    /// Applies `credential` to a copy of `request` and compares the URL and header fields.
    public func isRequest(_ request: OutgoingRequest, authenticatedWith credential: Credential) -> Bool {
        var expected = request
        apply(credential, to: &expected)
        return expected.url == request.url && expected.headerFields == request.headerFields
    }
}
