import CCurlShims
import Foundation

/// The curl thread's pool of easy handles.
///
/// Handles are not reset between transfers. Options that are the same for every request of a
/// session (callbacks, protocols, TLS, decoding, the share handle) are set once, when a handle
/// is made; ``TransferContext/configure(handle:transfer:)`` then sets every option that can
/// differ between requests, each time, so nothing of one request leaks into the next.
/// Skipping `curl_easy_reset` and the session options saves most of the per-request cost of
/// configuring libcurl.
final class EasyHandlePool {
    let configuration: SessionConfiguration
    private let share: UnsafeMutableRawPointer?
    private var idle: [UnsafeMutableRawPointer] = []
    private let maximumIdle = 256
    /// The headers every request gets — the session's default headers, User-Agent and
    /// Accept-Language — as one libcurl list, made once and shared by the requests that add none
    /// of their own. Freed by ``removeAll()``, after the last handle.
    private(set) var sessionHeaders: UnsafeMutablePointer<curl_slist>?
    /// `no_proxy` and the loopback hosts, read once: what the environment proxy skips.
    private let environmentBypass = ProxyConfiguration.environmentBypassList()
    /// Handles whose proxy options a request overrode; the session's are set again on reuse.
    private var proxyOverridden: Set<UnsafeMutableRawPointer> = []
    /// Handles whose last hop went over a Unix-domain socket; the option is cleared on reuse.
    private var onUnixSocket: Set<UnsafeMutableRawPointer> = []
    /// The session's trust configuration, checked once (see ``ResolvedTrust``).
    let trust: Result<ResolvedTrust, TrustConfigurationProblem>
    /// The index of the trust policy whose options each handle has, when not libcurl's defaults.
    var appliedTrustPolicy: [UnsafeMutableRawPointer: Int] = [:]
    /// Policies without evaluation whose use was already logged.
    var loggedInsecurePolicies: Set<Int> = []
    /// Handles that carried credentials, freed when they come back (see ``retireWhenReturned(_:)``).
    private var retiring: Set<UnsafeMutableRawPointer> = []

    init(configuration: SessionConfiguration, share: UnsafeMutableRawPointer?) {
        self.configuration = configuration
        self.share = share
        do {
            trust = .success(try ResolvedTrust(configuration.trust))
        } catch {
            trust = .failure(error)
        }
        let fields = TransferContext.withSessionHeaders(
            [:], userAgent: configuration.userAgent, acceptLanguage: configuration.acceptLanguage,
            defaults: configuration.defaultHeaders)
        for field in fields {
            sessionHeaders = curl_slist_append(sessionHeaders, TransferContext.curlHeaderLine(field))
        }
    }

    /// A configured handle, reused when one is idle.
    func take(for url: URL) throws(CurlewError) -> UnsafeMutableRawPointer {
        if let handle = idle.popLast() { return handle }
        guard let handle = curl_easy_init() else {
            throw CurlewError(.transport, "curl_easy_init failed: out of memory", url: url)
        }
        do {
            try configureSessionOptions(handle, url: url)
            try applyUniformTrust(on: handle, url: url)
        } catch {
            curl_easy_cleanup(handle)
            throw error
        }
        return handle
    }

    /// Marks a handle that carried credentials: ``recycle(_:)`` frees it instead of pooling it,
    /// so that libcurl's authentication state (the method it picked, a Digest nonce) never
    /// reaches another request.
    func retireWhenReturned(_ handle: UnsafeMutableRawPointer) {
        retiring.insert(handle)
    }

    /// Returns a handle that is no longer in the multi handle.
    func recycle(_ handle: UnsafeMutableRawPointer) {
        // A retired handle is freed like one the pool has no room for: by the same code, so that
        // everything the pool remembers about the handle is forgotten with it.
        let retired = !retiring.isEmpty && retiring.remove(handle) != nil
        if !retired, idle.count < maximumIdle {
            idle.append(handle)
        } else {
            proxyOverridden.remove(handle)
            onUnixSocket.remove(handle)
            appliedTrustPolicy.removeValue(forKey: handle)
            curl_easy_cleanup(handle)
        }
    }

    /// Frees every idle handle.
    func removeAll() {
        for handle in idle { curl_easy_cleanup(handle) }
        idle.removeAll()
        proxyOverridden.removeAll()
        onUnixSocket.removeAll()
        appliedTrustPolicy.removeAll()
        retiring.removeAll()
        if let sessionHeaders { curl_slist_free_all(sessionHeaders) }
        sessionHeaders = nil
    }

    private func configureSessionOptions(_ handle: UnsafeMutableRawPointer, url: URL) throws(CurlewError) {
        let options = EasyOptions(handle: handle, url: url)
        try options.set(CURLOPT_NOSIGNAL, 1)
        try options.set(CURLOPT_PROTOCOLS_STR, "http,https")
        try options.set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        try options.set(CURLOPT_FOLLOWLOCATION, 0)
        if let share { try options.check(curlew_easy_setopt_share(handle, share), "CURLOPT_SHARE") }
        try options.check(curlew_easy_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, CurlCallbacks.write), "CURLOPT_WRITEFUNCTION")
        try options.check(curlew_easy_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION, CurlCallbacks.header), "CURLOPT_HEADERFUNCTION")
        try options.check(curlew_easy_setopt_data_callback(handle, CURLOPT_READFUNCTION, CurlCallbacks.read), "CURLOPT_READFUNCTION")
        try options.check(curlew_easy_setopt_seek_callback(handle, CurlCallbacks.seek), "CURLOPT_SEEKFUNCTION")
        try options.check(curlew_easy_setopt_xferinfo_callback(handle, CurlCallbacks.progress), "CURLOPT_XFERINFOFUNCTION")
        // Curlew decodes bodies itself (see ContentDecoder); libcurl only offers the codings.
        try options.set(CURLOPT_HTTP_CONTENT_DECODING, 0)
        if configuration.automaticDecompression {
            try options.set(CURLOPT_ACCEPT_ENCODING, ContentDecoder.acceptEncoding)
        }
        try applyProxy(configuration.proxy, options)
        // TLS options are libcurl's defaults here (verify the peer and the host, the system's
        // certificate authorities); non-uniform trust configurations set them per hop in
        // `prepareTrust(on:transfer:url:)`.
    }

    /// Sets a request's own proxy on `handle`, or the session's again where an earlier request
    /// overrode it; nothing for the common case of neither.
    func prepareProxy(_ override: ProxyConfiguration?, on handle: UnsafeMutableRawPointer, url: URL) throws(CurlewError) {
        let options = EasyOptions(handle: handle, url: url)
        if let override {
            try applyProxy(override, options)
            proxyOverridden.insert(handle)
        } else if !proxyOverridden.isEmpty, proxyOverridden.remove(handle) != nil {
            try applyProxy(configuration.proxy, options)
        }
    }

    /// Points `handle` at the hop's Unix-domain socket, or clears the socket an earlier hop
    /// left on it; nothing for the common case of neither.
    func prepareUnixSocket(_ route: UnixSocketRoute?, on handle: UnsafeMutableRawPointer, url: URL) throws(CurlewError) {
        let options = EasyOptions(handle: handle, url: url)
        if let route {
            try options.set(CURLOPT_UNIX_SOCKET_PATH, route.path)
            onUnixSocket.insert(handle)
        } else if !onUnixSocket.isEmpty, onUnixSocket.remove(handle) != nil {
            try options.check(curlew_easy_setopt_string(handle, CURLOPT_UNIX_SOCKET_PATH, nil), CURLOPT_UNIX_SOCKET_PATH)
        }
    }

    /// Every proxy option, so none of another configuration survives on a reused handle.
    private func applyProxy(_ proxy: ProxyConfiguration, _ options: EasyOptions) throws(CurlewError) {
        let handle = options.handle
        switch proxy.mode {
        case .none:
            // An empty proxy string makes libcurl ignore the environment's variables.
            try options.set(CURLOPT_PROXY, "")
            try options.check(curlew_easy_setopt_string(handle, CURLOPT_NOPROXY, nil), CURLOPT_NOPROXY)
            try setProxyCredentials(nil, nil, options)
        case .environment:
            try options.check(curlew_easy_setopt_string(handle, CURLOPT_PROXY, nil), CURLOPT_PROXY)
            try options.set(CURLOPT_NOPROXY, environmentBypass)
            try setProxyCredentials(nil, nil, options)
        case .explicit(_, _, _, let username, let password, let bypassing):
            try options.set(CURLOPT_PROXY, proxy.displayURL ?? "")
            if bypassing.isEmpty {
                try options.check(curlew_easy_setopt_string(handle, CURLOPT_NOPROXY, nil), CURLOPT_NOPROXY)
            } else {
                try options.set(CURLOPT_NOPROXY, bypassing.joined(separator: ","))
            }
            try setProxyCredentials(username, password, options)
        }
    }

    private func setProxyCredentials(_ username: String?, _ password: String?, _ options: EasyOptions) throws(CurlewError) {
        for (option, value) in [(CURLOPT_PROXYUSERNAME, username), (CURLOPT_PROXYPASSWORD, password)] {
            if let value {
                try options.set(option, value)
            } else {
                try options.check(curlew_easy_setopt_string(options.handle, option, nil), option)
            }
        }
    }
}
