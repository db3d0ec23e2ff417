import Foundation
import HTTPTypes

/// Authenticates requests with a refreshable credential: an actor that is an interceptor.
///
/// ```swift
/// let auth = AuthenticationInterceptor(
///     authenticator: APIKeyAuthenticator(), credential: savedKey,
///     scope: .hosts(["api.example.com"]))
/// let session = Session(interceptors: [auth, RetryPolicy.default])
/// ```
///
/// ``OAuth2Authenticator`` is this actor with an ``OAuth2TokenRefresher``.
///
/// - **Scope.** The credential is applied only to URLs in ``scope``; other requests pass
///   untouched and are never retried here. A plain-http request to a host the scope names
///   (not a loopback host) fails before it is sent, rather than show the credential to the
///   network.
/// - **Proactive refresh.** A credential within ``refreshLeeway`` of its expiry is refreshed
///   before it is sent.
/// - **Single flight.** However many requests need a refresh at once, one refresh runs and
///   all of them wait for it; then each is sent (or retried) with the new credential.
/// - **Credential versions.** A request that was rejected with an older credential than the
///   current one is retried at once, without another refresh.
/// - **Rejections.** A response the authenticator recognises as a rejection (401 by default)
///   of a request sent with the credential fails the attempt — also without `validate()` —
///   so that the interceptor can refresh and retry. If a credential refreshed during the
///   request's lifetime is rejected too, the request fails instead of looping.
/// - **Failures.** When a refresh fails, every request waiting for it fails with that error
///   (``CurlewError/Kind/authenticationFailed``), and attempts that were already under way
///   fail with it too rather than refreshing again. Requests made later may try again.
/// - **Refresh window.** More than ``RefreshWindow/maximumRefreshes`` refreshes within
///   ``RefreshWindow/interval`` fail with a clear error instead of refreshing again.
public actor AuthenticationInterceptor<A: Authenticator>: RequestInterceptor, ResponseInterceptor {
    /// Stores a new credential, for example in a keychain or a file.
    public typealias RefreshHandler = @Sendable (A.Credential) async throws -> Void

    /// The scheme: how the credential is applied and refreshed.
    public nonisolated let authenticator: A
    /// Where the credential may be sent.
    public nonisolated let scope: AuthenticationScope
    /// How long before its expiry a credential is refreshed before use.
    public nonisolated let refreshLeeway: Duration
    /// The limit on refreshes; nil for none.
    public nonisolated let refreshWindow: RefreshWindow?
    private let onRefresh: RefreshHandler?

    /// The current credential.
    public private(set) var credential: A.Credential?
    /// Increases each time the credential changes (refresh or ``setCredential(_:)``).
    public private(set) var credentialVersion = 0
    /// How many refreshes were started.
    public private(set) var refreshCount = 0
    /// The error of the last `onRefresh` call that failed, if any. The new credential is kept
    /// (it may be the only valid one once the old refresh token has rotated) and the failure
    /// is also logged to the session's logger.
    public private(set) var lastRefreshHandlerError: (any Error & Sendable)?

    private var refreshTask: Task<A.Credential, any Error>?
    private var refreshStarts: [ContinuousClock.Instant] = []
    /// When the current credential was obtained by a refresh.
    private var refreshedAt: ContinuousClock.Instant?
    private var lastFailure: (at: ContinuousClock.Instant, version: Int, error: CurlewError)?

    /// Creates an interceptor.
    /// - Parameters:
    ///   - authenticator: the scheme.
    ///   - credential: the credential to start with; nil makes requests in scope fail until
    ///     ``setCredential(_:)`` is called.
    ///   - scope: where the credential may be sent.
    ///   - refreshLeeway: refresh a credential this long before it expires.
    ///   - refreshWindow: the limit on refreshes; nil for none.
    ///   - onRefresh: called with each new credential, before waiting requests proceed.
    public init(
        authenticator: A, credential: A.Credential?, scope: AuthenticationScope,
        refreshLeeway: Duration = .seconds(30), refreshWindow: RefreshWindow? = .default,
        onRefresh: RefreshHandler? = nil
    ) {
        self.authenticator = authenticator
        self.credential = credential
        self.scope = scope
        self.refreshLeeway = refreshLeeway
        self.refreshWindow = refreshWindow
        self.onRefresh = onRefresh
    }

    /// Replaces the credential, for example after a new login. Requests that fail with the old
    /// one are retried with this one.
    public func setCredential(_ credential: A.Credential?) {
        self.credential = credential
        credentialVersion += 1
        refreshedAt = nil
        lastFailure = nil
    }

    // MARK: Adapting

    /// Applies the credential to requests in scope, refreshing it first when it is about to
    /// expire or a refresh is under way.
    public func adapt(_ request: OutgoingRequest, for session: Session) async throws -> OutgoingRequest {
        switch scope.coverage(of: request.url) {
        case .outside:
            return request
        case .insecure:
            throw CurlewError(
                .authenticationFailed,
                "the credential for \(request.url.host ?? "this host") goes only over https (or to a loopback host), never in clear text; name the http:// URL in AuthenticationScope.urlPrefixes to send it over plain http",
                url: request.url)
        case .inside:
            break
        }
        let usable = try await usableCredential(for: session, url: request.url)
        var adapted = request
        authenticator.apply(usable, to: &adapted)
        return adapted
    }

    private func usableCredential(for session: Session, url: URL) async throws(CurlewError) -> A.Credential {
        if let refreshTask { return try await Self.value(of: refreshTask, url: url) }
        guard let credential else {
            throw CurlewError(.authenticationFailed, "there is no credential to authenticate with", url: url)
        }
        guard let expiry = credential.expiresAt, expiry.timeIntervalSinceNow <= refreshLeeway.inSeconds else {
            return credential
        }
        return try await refresh(session: session, url: url)
    }

    // MARK: Responses and retries

    /// Turns a rejection (401 by default) of a request in scope into a failed attempt, so
    /// that the retry side can refresh the credential; other responses pass untouched.
    public nonisolated func intercept(_ response: Response<Data>, for session: Session) async throws -> Response<Data> {
        guard response.status.code >= 400, scope.contains(response.url),
            RedirectRules.isSameOrigin(response.redirects.first?.from ?? response.url, response.url)
        else { return response }
        let error = CurlewError(
            .unacceptableStatus,
            "HTTP \(response.status.code) \(response.status.reasonPhrase): the server did not accept the credential",
            url: response.url, responseHead: response.head, responseBody: response.value)
        guard authenticator.didRequest(response.request, failDueToAuthenticationError: error) else { return response }
        // Marked, so that the retry side does not ask `didRequest` a second time.
        throw error.replacing(underlying: CredentialRejection())
    }

    /// Retries a request rejected for its credential: at once when a newer credential exists,
    /// else after the (single-flight) refresh.
    public func retry(_ request: OutgoingRequest, for session: Session, dueTo error: CurlewError, context: RetryContext)
        async -> RetryResult
    {
        // Refresh failures (even with a 401 from the token endpoint) are final, not rejections.
        guard error.kind != .authenticationFailed, scope.contains(request.url),
            error.url.map({ RedirectRules.isSameOrigin($0, request.url) }) ?? true,
            error.underlying is CredentialRejection || authenticator.didRequest(request, failDueToAuthenticationError: error),
            let credential
        else { return .doNotRetry }
        if !authenticator.isRequest(request, authenticatedWith: credential) {
            // Sent with an older credential: the next attempt gets the current one.
            return .retry
        }
        if let refreshedAt, refreshedAt > context.firstAttemptStart, refreshTask == nil {
            return .doNotRetryWithError(CurlewError(
                .authenticationFailed,
                "the server rejected a credential that was refreshed while this request was under way; not refreshing again",
                url: error.url ?? request.url, responseHead: error.responseHead, responseBody: error.responseBody,
                underlying: error))
        }
        if let failure = lastFailure, failure.version == credentialVersion, context.attemptStart < failure.at {
            // This attempt was already under way when the refresh failed: share that failure.
            return .doNotRetryWithError(failure.error)
        }
        do {
            _ = try await refresh(session: session, url: request.url)
            return .retry
        } catch {
            return .doNotRetryWithError(error)
        }
    }

    // MARK: Refreshing

    /// Joins the refresh under way, or starts one.
    private func refresh(session: Session, url: URL) async throws(CurlewError) -> A.Credential {
        if let refreshTask { return try await Self.value(of: refreshTask, url: url) }
        guard let current = credential else {
            throw CurlewError(.authenticationFailed, "there is no credential to refresh", url: url)
        }
        if let window = refreshWindow {
            let now = ContinuousClock.now
            refreshStarts.removeAll { now - $0 >= window.interval }
            guard refreshStarts.count < window.maximumRefreshes else {
                throw CurlewError(
                    .authenticationFailed,
                    "excessive credential refreshing: \(refreshStarts.count) refreshes within \(window.interval); not refreshing again until the window allows it",
                    url: url)
            }
            refreshStarts.append(now)
        }
        refreshCount += 1
        let task = Task { try await self.performRefresh(current, session: session) }
        refreshTask = task
        return try await Self.value(of: task, url: url)
    }

    /// The refresh itself; updates the state before anyone waiting on it resumes.
    ///
    /// A credential set by ``setCredential(_:)`` while the refresh ran stands: the refreshed one
    /// is dropped (neither kept nor handed to `onRefresh`, which would store the replaced
    /// login's tokens over the new one), and the waiting requests go with the new credential.
    private func performRefresh(_ current: A.Credential, session: Session) async throws -> A.Credential {
        let version = credentialVersion
        let fresh: A.Credential
        do {
            fresh = try await authenticator.refresh(current, for: session)
        } catch {
            refreshTask = nil
            if credentialVersion != version, let replacement = credential { return replacement }
            let failure = Self.refreshError(error)
            lastFailure = (ContinuousClock.now, version, failure)
            throw failure
        }
        if credentialVersion != version {
            refreshTask = nil
            guard let replacement = credential else {
                throw CurlewError(.authenticationFailed, "the credential was removed while it was being refreshed")
            }
            return replacement
        }
        credential = fresh
        credentialVersion += 1
        refreshedAt = .now
        lastFailure = nil
        refreshTask = nil
        if let onRefresh {
            do {
                try await onRefresh(fresh)
            } catch {
                lastRefreshHandlerError = error
                session.configuration.logger?.error(
                    "Curlew: the onRefresh handler failed to store the new credential: \(error)")
            }
        }
        return fresh
    }

    private static func value(of task: Task<A.Credential, any Error>, url: URL) async throws(CurlewError) -> A.Credential {
        do {
            return try await task.value
        } catch {
            throw refreshError(error)
        }
    }

    private static func refreshError(_ error: any Error) -> CurlewError {
        if let error = error as? CurlewError, error.kind == .authenticationFailed { return error }
        let url = (error as? CurlewError)?.url
        return CurlewError(
            .authenticationFailed, "refreshing the credential failed: \(error)", url: url, underlying: error)
    }
}

/// Marks the error of a response the authenticator already judged a rejection of its
/// credential (``AuthenticationInterceptor/intercept(_:for:)``), so that it is asked once.
struct CredentialRejection: Error, Sendable {}
