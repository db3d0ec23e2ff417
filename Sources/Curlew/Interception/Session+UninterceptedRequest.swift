import Foundation

extension Session {
    /// A request that skips the session's interceptors: no session adapter changes it and no
    /// session retrier retries it. Interceptors added with `intercept(with:)` still apply.
    ///
    /// Meant for the calls an interceptor makes itself — a token refresh, for example — which
    /// must not pass through that interceptor. The session's configuration (TLS, timeouts,
    /// cookies, event monitors) still applies.
    public nonisolated func uninterceptedRequest(_ request: OutgoingRequest) -> DataRequest {
        DataRequest(session: self, build: RequestBuilder.validate(request), usesSessionInterceptors: false)
    }
}
