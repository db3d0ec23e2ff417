import Foundation
import HTTPTypes

extension Session {
    /// Opens a WebSocket to `url` (`ws://`, `wss://`, or `ws+unix://` with the socket's path as
    /// the percent-encoded host) and returns it once the server accepted the handshake.
    ///
    /// libcurl makes the connection as it would for a request — DNS, the session's proxy (a
    /// CONNECT tunnel through an HTTP proxy), TLS with the session's trust policies and client
    /// certificates — then Curlew writes the handshake itself and speaks RFC 6455 over the
    /// socket on the session's own thread. The handshake passes the session's interceptors
    /// (their adapters: an ``OAuth2Authenticator`` adds its token; their retriers: a 401 lets
    /// it refresh the token and open again, a failure ``RetryPolicy`` retries is tried again),
    /// and carries the session's default headers, User-Agent and cookies; `Set-Cookie` fields
    /// of the answer are stored.
    ///
    /// - Parameters:
    ///   - url: the `ws`, `wss` or `ws+unix` URL (`http` and `https` are taken as `ws` and `wss`).
    ///   - protocols: subprotocols to offer, in order of preference; the server picks one or none.
    ///   - headers: more fields for the handshake (not the handshake's own, such as `Upgrade`).
    ///   - options: limits, compression, keep-alive and timeouts.
    /// - Throws: ``CurlewError/Kind/webSocketHandshakeFailed`` when the server answers with
    ///   another status than 101 (the error carries the response head; redirects are not
    ///   followed) or a 101 that does not answer the request; the connection's own errors
    ///   (``CurlewError/Kind/connectionRefused``, ``CurlewError/Kind/tlsFailure``, …) otherwise.
    public nonisolated func webSocket(
        _ url: some URLConvertible, protocols: [String] = [], headers: RequestHeaders = [:],
        options: WebSocketOptions = WebSocketOptions()
    ) async throws(CurlewError) -> WebSocket {
        let given = try url.asURL()
        let transportURL = try Self.webSocketTransportURL(given)
        try options.validate(url: given)
        let fields = try headers.fields(for: given)
        try WebSocketHandshake.check(protocols: protocols, headers: fields, url: given)
        let base = try RequestBuilder.build(
            url: transportURL, method: .get, headers: RequestHeaders(fields), body: nil, options: RequestOptions()
        ).get()
        let chain = InterceptorChain(interceptors)
        let firstStart = ContinuousClock.now
        var attempt = 1
        while true {
            let attemptStart = ContinuousClock.now
            var request = base
            if !chain.isEmpty { request = try await chain.adapt(base, for: self) }
            // An adapter may rewrite the request, but not into something else than a handshake.
            try WebSocketHandshake.check(protocols: protocols, headers: request.headerFields, url: given)
            var random = SystemRandomNumberGenerator()
            let handshake = WebSocketHandshake(protocols: protocols, compression: options.compression, using: &random)
            let channel = WebSocketChannel(
                url: given, request: request, handshake: handshake, options: options,
                settings: transferSettings(for: request.options), loop: loop)
            do {
                let opened = try await channel.open()
                return WebSocket(channel: channel, opened: opened)
            } catch {
                let context = RetryContext(attempt: attempt, firstAttemptStart: firstStart, attemptStart: attemptStart)
                try await Self.retryOpening(after: error, request: request, chain: chain, context: context, session: self)
                attempt += 1
            }
        }
    }

    /// Shows a failed opening to the session's retriers, as a request's failed attempt is
    /// shown: returns to try again (after the delay asked for), or throws the error to fail
    /// with. A rejected handshake carries its response (a 401 lets ``OAuth2Authenticator``
    /// refresh and retry once, a 503 lets ``RetryPolicy`` wait); cancellations are final.
    private static func retryOpening(
        after error: CurlewError, request: OutgoingRequest, chain: InterceptorChain, context: RetryContext, session: Session
    ) async throws(CurlewError) {
        let final: [CurlewError.Kind] = [.cancelled, .taskCancelled, .sessionShutdown, .invalidRequest]
        guard !chain.isEmpty, !final.contains(error.kind), !Task.isCancelled else { throw error }
        // Retriers compare the error's URL with the request's (an authenticator retries only
        // a rejection by the origin it sent the credential to): both are the http(s) one.
        switch await chain.decide(request, for: session, dueTo: error.naming(request.url), context: context) {
        case .doNotRetry:
            throw error
        case .doNotRetryWithError(let replacement):
            throw replacement as? CurlewError
                ?? CurlewError(.retryLimitExceeded, "\(replacement)", url: error.url, underlying: replacement)
        case .retry:
            return
        case .retryWithDelay(let delay):
            do {
                try await Task.sleep(for: max(.zero, delay))
            } catch {
                throw CurlewError(.taskCancelled, "cancelled while waiting to open the WebSocket again", url: request.url)
            }
        }
    }

    /// The http, https or http+unix URL libcurl connects to for a ws, wss or ws+unix URL.
    static func webSocketTransportURL(_ url: URL) throws(CurlewError) -> URL {
        let scheme = url.scheme?.lowercased() ?? ""
        let replacement: String
        switch scheme {
        case "ws", "http": replacement = "http"
        case "wss", "https": replacement = "https"
        case "ws+unix", "http+unix": replacement = "http+unix"
        default:
            throw CurlewError(.unsupportedScheme, "a WebSocket URL starts with ws://, wss:// or ws+unix://, not \(scheme.prefix(20)):", url: url)
        }
        guard url.fragment == nil else {
            throw CurlewError(.invalidURL, "a WebSocket URL has no fragment (RFC 6455 §3)", url: url)
        }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            throw CurlewError(.invalidURL, "the WebSocket URL cannot be taken apart", url: url)
        }
        components.scheme = replacement
        guard let converted = components.url else {
            throw CurlewError(.invalidURL, "the WebSocket URL has no \(replacement) equivalent", url: url)
        }
        return converted
    }
}
