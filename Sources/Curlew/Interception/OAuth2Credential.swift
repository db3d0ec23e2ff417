import Foundation

/// An OAuth2 access token with what is needed to refresh it (RFC 6749 §5.1).
///
/// Codable, so that it can be stored by an `onRefresh` handler (the JSON holds both tokens:
/// store it as you would a password). Printed, debug-printed or dumped, it hides the tokens,
/// so that it is safe to log.
public struct OAuth2Credential: AuthenticationCredential, Codable, Hashable, CustomStringConvertible,
    CustomDebugStringConvertible, CustomReflectable
{
    /// The access token sent with each request.
    public var accessToken: String
    /// The refresh token; nil when the server issued none (the credential cannot be refreshed).
    public var refreshToken: String?
    /// When the access token expires; nil when unknown (it is then refreshed only after a 401).
    public var expiresAt: Date?
    /// The token type; only `Bearer` (RFC 6750) is supported.
    public var tokenType: String
    /// The scope the server granted, space-separated, when it said.
    public var scope: String?

    /// Creates a credential.
    public init(
        accessToken: String, refreshToken: String?, expiresAt: Date?, tokenType: String = "Bearer",
        scope: String? = nil
    ) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.tokenType = tokenType
        self.scope = scope
    }

    /// Creates a credential that expires `expiresIn` from now.
    public init(accessToken: String, refreshToken: String?, expiresIn: Duration, tokenType: String = "Bearer", scope: String? = nil) {
        self.init(
            accessToken: accessToken, refreshToken: refreshToken,
            expiresAt: Date().addingTimeInterval(expiresIn.inSeconds), tokenType: tokenType, scope: scope)
    }

    /// Whether the access token had expired at `date`.
    public func isExpired(at date: Date = Date()) -> Bool {
        expiresAt.map { $0 <= date } ?? false
    }

    /// The type and expiry, with the tokens hidden.
    public var description: String {
        let expiry = expiresAt.map { "expires \($0)" } ?? "no known expiry"
        return "OAuth2Credential(\(tokenType), \(expiry), refresh token: \(refreshToken == nil ? "none" : "present"))"
    }

    /// The same as ``description``: the tokens are hidden.
    public var debugDescription: String { description }

    /// A mirror without the tokens, so that `dump` and the debugger do not show them.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "accessToken": Redaction.placeholder, "refreshToken": refreshToken == nil ? "none" : Redaction.placeholder,
                "expiresAt": expiresAt as Any, "tokenType": tokenType, "scope": scope as Any,
            ])
    }
}
