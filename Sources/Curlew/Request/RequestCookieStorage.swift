/// Where one request keeps its cookies instead of the session's
/// ``SessionConfiguration/cookieStorage`` (``RequestOptions/cookieStorage``).
///
/// A session's storage is shared by every request the session makes: a server that acts for
/// many users with one session would send one user's cookies with another's requests. Give
/// each user's requests that user's storage, or none:
///
/// ```swift
/// var options = RequestOptions()
/// options.cookieStorage = .storage(jars.jar(for: user))   // this user's cookies only
/// let profile = try await session.request(url, options: options).decode(Profile.self)
/// ```
public enum RequestCookieStorage: Sendable {
    /// Cookies are sent from this storage and stored in it, at every redirect hop; the
    /// session's storage is neither read nor changed.
    case storage(any CookieStorage)
    /// No storage: no cookie is sent from one, and `Set-Cookie` fields are stored nowhere (they
    /// stay readable in ``Response/cookies``). A `Cookie` field of the request's own still goes.
    case disabled

    /// The storage the request uses, or nil.
    var storage: (any CookieStorage)? {
        switch self {
        case .storage(let storage): storage
        case .disabled: nil
        }
    }
}
