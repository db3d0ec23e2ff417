import Foundation

/// The OAuth2 authenticator: an actor that is an interceptor, refreshing tokens with the
/// `refresh_token` grant, one refresh at a time, however many requests need it.
///
/// ```swift
/// let auth = OAuth2Authenticator(
///     credential: saved, tokenURL: tokenURL, clientID: "app", clientSecret: secret,
///     scope: .hosts(["api.example.com"]),
///     onRefresh: { try await store.save($0) })
/// let api = Session(interceptors: [auth, RetryPolicy.default])
/// ```
///
/// See ``AuthenticationInterceptor`` for the behaviour (scope, proactive refresh, single
/// flight, credential versions, failures and the refresh window), and
/// ``OAuth2TokenRefresher`` for the token endpoint exchange.
public typealias OAuth2Authenticator = AuthenticationInterceptor<OAuth2TokenRefresher>

extension AuthenticationInterceptor where A == OAuth2TokenRefresher {
    /// Creates an OAuth2 authenticator.
    /// - Parameters:
    ///   - credential: the tokens to start with (nil fails requests in scope until
    ///     `setCredential` is called).
    ///   - tokenURL: the token endpoint.
    ///   - clientID: the client identifier.
    ///   - clientSecret: the client secret; nil for a public client, which sends only
    ///     `client_id` in the body.
    ///   - clientAuthentication: HTTP Basic (the default) or body parameters.
    ///   - scope: where the access token may be sent.
    ///   - requestedScope: a `scope` to send with the refresh, to narrow the grant.
    ///   - requiresInvalidTokenChallenge: when true, a 401 counts as an expired token only if
    ///     it carries `WWW-Authenticate: Bearer error="invalid_token"`.
    ///   - refreshLeeway: refresh this long before the token expires.
    ///   - refreshWindow: the limit on refreshes; nil for none.
    ///   - onRefresh: stores each new credential (the refresh token may have rotated).
    public init(
        credential: OAuth2Credential?, tokenURL: URL, clientID: String, clientSecret: String? = nil,
        clientAuthentication: OAuth2ClientAuthentication = .basic, scope: AuthenticationScope,
        requestedScope: String? = nil, requiresInvalidTokenChallenge: Bool = false,
        refreshLeeway: Duration = .seconds(30), refreshWindow: RefreshWindow? = .default,
        onRefresh: RefreshHandler? = nil
    ) {
        self.init(
            authenticator: OAuth2TokenRefresher(
                tokenURL: tokenURL, clientID: clientID, clientSecret: clientSecret,
                clientAuthentication: clientAuthentication, requestedScope: requestedScope,
                requiresInvalidTokenChallenge: requiresInvalidTokenChallenge),
            credential: credential, scope: scope, refreshLeeway: refreshLeeway, refreshWindow: refreshWindow,
            onRefresh: onRefresh)
    }
}
