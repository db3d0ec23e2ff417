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
    /// (their adapters: an ``OAuth2Authenticator`` adds its token), and carries the session's
    /// default headers, User-Agent and cookies; `Set-Cookie` fields of the answer are stored.
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
        var request = try RequestBuilder.build(
            url: transportURL, method: .get, headers: RequestHeaders(fields), body: nil, options: RequestOptions()
        ).get()
        if !interceptors.isEmpty { request = try await InterceptorChain(interceptors).adapt(request, for: self) }
        // An adapter may rewrite the request, but not into something else than a handshake.
        try WebSocketHandshake.check(protocols: protocols, headers: request.headerFields, url: given)
        var random = SystemRandomNumberGenerator()
        let handshake = WebSocketHandshake(protocols: protocols, compression: options.compression, using: &random)
        let channel = WebSocketChannel(
            url: given, request: request, handshake: handshake, options: options,
            settings: transferSettings(for: request.options), loop: loop)
        let opened = try await channel.open()
        return WebSocket(channel: channel, opened: opened)
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
