import Foundation

/// A credential held by an ``AuthenticationInterceptor``.
public protocol AuthenticationCredential: Sendable {
    /// When the credential stops being valid; nil when that is unknown or never. The
    /// interceptor refreshes a credential before use once it is within its leeway of this date.
    var expiresAt: Date? { get }
}
