/// How an OAuth2 client authenticates to the token endpoint (RFC 6749 §2.3.1).
public enum OAuth2ClientAuthentication: Sendable, Hashable {
    /// HTTP Basic with the form-encoded client ID and secret (`client_secret_basic`), the
    /// method every server must support.
    case basic
    /// `client_id` and `client_secret` in the form body (`client_secret_post`).
    case body
}
