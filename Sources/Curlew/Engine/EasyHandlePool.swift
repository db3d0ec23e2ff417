import CCurlShims
import Foundation

/// The curl thread's pool of easy handles.
///
/// Handles are not reset between transfers. Options that are the same for every request of a
/// session (callbacks, protocols, TLS, decoding, the share handle) are set once, when a handle
/// is made; ``TransferContext/configure(handle:transfer:sessionHeaders:)`` then gives every
/// option that can differ between requests its value for the hop, so nothing of one request
/// leaks into the next (calling `curl_easy_setopt` only where the handle's ``EasyOptionRecord``
/// holds another value). Skipping `curl_easy_reset` and the session options saves most of the
/// per-request cost of configuring libcurl.
final class EasyHandlePool {
    let configuration: SessionConfiguration
    private let share: UnsafeMutableRawPointer?
    /// The loop's clock, which every handle made here points at.
    private let clock: LoopClock
    /// The loop's record of its sockets, which every handle opens and closes them through.
    private let ledger: ConnectionLedger
    // Confined to the curl thread: no runtime exclusivity checks.
    @exclusivity(unchecked) private var idle: [EasyHandle] = []
    private let maximumIdle = 256
    /// The headers every request gets — the session's default headers, User-Agent and
    /// Accept-Language — as one libcurl list, made once and shared by the requests that add none
    /// of their own. Freed by ``removeAll()``, after the last handle.
    private(set) var sessionHeaders: UnsafeMutablePointer<curl_slist>?
    /// The session's `CURLOPT_RESOLVE` and `CURLOPT_CONNECT_TO` lists (see ``NetworkControls``),
    /// made once, nil when empty or when the controls are invalid (requests then fail in
    /// ``TransferSettings/validate(url:)``). libcurl does not copy them: freed by ``removeAll()``.
    private(set) var sessionResolveList: UnsafeMutablePointer<curl_slist>?
    private(set) var sessionConnectToList: UnsafeMutablePointer<curl_slist>?
    /// Whether the session's network controls are valid, so they are set on each new handle.
    private let networkIsValid: Bool
    /// `no_proxy` and the loopback hosts, read once: what the environment proxy skips.
    private let environmentBypass = ProxyConfiguration.environmentBypassList()
    /// The session's trust configuration, checked once (see ``ResolvedTrust``).
    let trust: Result<ResolvedTrust, TrustConfigurationProblem>
    /// Policies without evaluation whose use was already logged.
    var loggedInsecurePolicies: Set<Int> = []
    /// Whether the DNS-over-HTTPS server's missing checks were logged.
    var loggedInsecureDNSOverHTTPS = false
    /// HTTPS proxies whose policy without evaluation was already logged.
    var loggedInsecureProxies: Set<String> = []
    /// The trust policy of the session's proxy, checked once, when it is an HTTPS proxy with a
    /// policy of its own; nil for libcurl's defaults.
    private let sessionProxyTrust: Result<ResolvedTrustPolicy, TrustConfigurationProblem>?
    /// The trust policies of HTTPS proxies the session's ``ProxySelector`` chose, resolved.
    /// The private folder (mode 0700) of the handles' Alt-Svc files, once one was staged, and
    /// how many files were made in it (see ``prepareAltSvc(for:on:request:)``).
    @exclusivity(unchecked) var altSvcFolderPath: String?
    @exclusivity(unchecked) var altSvcFileCount = 0
    @exclusivity(unchecked) private var selectedTrusts: [ProxyConfiguration: Result<ResolvedTrustPolicy, TrustConfigurationProblem>?] = [:]

    init(configuration: SessionConfiguration, share: UnsafeMutableRawPointer?, clock: LoopClock, ledger: ConnectionLedger) {
        self.configuration = configuration
        self.share = share
        self.clock = clock
        self.ledger = ledger
        do {
            trust = .success(try ResolvedTrust(configuration.trust))
        } catch {
            trust = .failure(error)
        }
        sessionProxyTrust = configuration.proxy.resolvedTrust()
        let fields = TransferContext.withSessionHeaders(
            [:], userAgent: configuration.userAgent, acceptLanguage: configuration.acceptLanguage,
            defaults: configuration.defaultHeaders,
            acceptEncoding: configuration.automaticDecompression ? ContentDecoder.acceptEncoding : nil)
        for field in fields {
            sessionHeaders = curl_slist_append(sessionHeaders, TransferContext.curlHeaderLine(field))
        }
        let network = configuration.network
        networkIsValid = network.problem == nil
        if networkIsValid {
            sessionResolveList = Self.list(network.resolveLines)
            sessionConnectToList = Self.list(NetworkControls.connectToLines(network.connectTo))
        }
    }

    /// `lines` as a libcurl list; nil when there are none.
    static func list(_ lines: [String]) -> UnsafeMutablePointer<curl_slist>? {
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines { list = curl_slist_append(list, line) }
        return list
    }

    /// A configured handle, reused when one is idle.
    func take(for request: OutgoingRequest) throws(CurlewError) -> EasyHandle {
        if let handle = idle.popLast() { return handle }
        guard let handle = EasyHandle(clock: clock) else {
            throw CurlewError(.transport, "curl_easy_init failed: out of memory", url: request.url)
        }
        do {
            try configureSessionOptions(handle, request: request)
            try applyUniformTrust(on: handle, request: request)
        } catch {
            handle.close()
            throw error
        }
        return handle
    }

    /// Marks a handle that carried credentials: ``recycle(_:)`` frees it instead of pooling it,
    /// so that libcurl's authentication state (the method it picked, a Digest nonce) never
    /// reaches another request.
    func retireWhenReturned(_ handle: EasyHandle) {
        handle.retiring = true
    }

    /// Returns a handle that is no longer in the multi handle.
    func recycle(_ handle: EasyHandle) {
        handle.transfer = nil
        // A retired handle is freed like one the pool has no room for; what the pool knows
        // about a handle lives in its ``EasyHandle`` and goes with it.
        if !handle.retiring, idle.count < maximumIdle {
            idle.append(handle)
        } else {
            handle.close()
            // libcurl wrote the handle's Alt-Svc cache when it was freed, just now.
            if let stage = handle.altSvcStage { finishAltSvc(stage) }
        }
    }

    /// Frees every idle handle.
    func removeAll() {
        for handle in idle { handle.close() }
        idle.removeAll()
        if let sessionHeaders { curl_slist_free_all(sessionHeaders) }
        sessionHeaders = nil
        if let sessionResolveList { curl_slist_free_all(sessionResolveList) }
        sessionResolveList = nil
        if let sessionConnectToList { curl_slist_free_all(sessionConnectToList) }
        sessionConnectToList = nil
        removeAltSvcFolder()
    }

    private func configureSessionOptions(_ easy: EasyHandle, request: OutgoingRequest) throws(CurlewError) {
        let handle = easy.pointer
        let options = EasyOptions(handle: handle, request: request)
        try easy.setStableOptions(options)
        try options.set(CURLOPT_NOSIGNAL, 1)
        try options.set(CURLOPT_PROTOCOLS_STR, "http,https")
        try options.set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        try options.set(CURLOPT_FOLLOWLOCATION, 0)
        if let share { try options.check(curlew_easy_setopt_share(handle, share), "CURLOPT_SHARE") }
        // Per connection, not per request: the ledger behind `Session.connectionPool()`.
        try options.check(
            curlew_easy_setopt_socket_callbacks(handle, ConnectionLedger.open, ConnectionLedger.close, ledger.callbackData),
            "CURLOPT_OPENSOCKETFUNCTION")
        try options.check(curlew_easy_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, CurlCallbacks.write), "CURLOPT_WRITEFUNCTION")
        try options.check(curlew_easy_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION, curlew_head_buffer_callback), "CURLOPT_HEADERFUNCTION")
        try options.check(curlew_easy_setopt_data_callback(handle, CURLOPT_READFUNCTION, CurlCallbacks.read), "CURLOPT_READFUNCTION")
        try options.check(curlew_easy_setopt_seek_callback(handle, CurlCallbacks.seek), "CURLOPT_SEEKFUNCTION")
        // Request bodies go out in reads of up to 512 KiB instead of libcurl's 64 KiB: a 256 MiB
        // upload took 20% less CPU (0.124 to 0.099 s). libcurl allocates this buffer for each
        // transfer that sends a body and writes only as many bytes as the body has. libcurl
        // 7.88 clamps the value (16 KiB to 2 MiB) and does not refuse it.
        _ = curlew_easy_setopt_long(handle, CURLOPT_UPLOAD_BUFFERSIZE, 512 << 10)
        try options.check(curlew_easy_setopt_xferinfo_callback(handle, CurlCallbacks.progress), "CURLOPT_XFERINFOFUNCTION")
        // Curlew decodes bodies itself (see ContentDecoder) and offers the codings in its own
        // Accept-Encoding field (see `TransferContext.withSessionHeaders`), not through
        // CURLOPT_ACCEPT_ENCODING, which libcurl formats twice per request.
        try options.set(CURLOPT_HTTP_CONTENT_DECODING, 0)
        // A proxy's answer to `CONNECT` is never a response: without this, libcurl hands the
        // proxy's `200 Connection established` head to the header callback ahead of the
        // origin's on every new tunnel, and it would be taken as the response. A refused tunnel
        // is reported from its status (`CURLINFO_HTTP_CONNECTCODE`, see CurlErrorMapping).
        try options.set(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
        try applyProxy(configuration.proxy, trust: sessionProxyTrust, on: easy, options)
        if networkIsValid { try applyNetworkControls(configuration.network, options) }
        // TLS options are libcurl's defaults here (verify the peer and the host, the system's
        // certificate authorities); non-uniform trust configurations set them per hop in
        // `prepareTrust(on:request:)`.
    }

    /// Sets the hop's proxy on `handle`: the request's own (with its trust policy, see
    /// ``TransferSettings/proxyOverrideTrust``), else the session's ``ProxySelector``'s choice
    /// for the hop's URL (kept in ``TransferContext/chosenProxy``), else the session's again
    /// where an earlier request overrode it; nothing for the common case of none of them.
    ///
    /// A handle that carried credentials for a proxy answered by challenge (Digest, NTLM, …)
    /// other than the session's is retired after the transfer: libcurl keeps the proxy's nonce
    /// and the method it picked on the handle, and another request's proxy must not get them.
    func prepareProxy(for context: TransferContext, on handle: EasyHandle, request: OutgoingRequest) throws(CurlewError) {
        let settings = context.settings
        context.chosenProxy = nil
        var override = settings.proxyOverride
        var trust = settings.proxyOverrideTrust
        if override == nil, let selector = configuration.proxySelector {
            let chosen = selector.proxy(for: request.url)
            try chosen.validate(url: request.url)
            context.chosenProxy = chosen
            override = chosen
            trust = selectedProxyTrust(chosen)
        }
        if let override {
            // Marked first: if setting it fails half way, the session's are set again on reuse.
            handle.proxyOverridden = true
            if override.answersChallenges { retireWhenReturned(handle) }
            try applyProxy(override, trust: trust, on: handle, EasyOptions(handle: handle.pointer, request: request))
        } else if handle.proxyOverridden {
            try applyProxy(
                configuration.proxy, trust: sessionProxyTrust, on: handle, EasyOptions(handle: handle.pointer, request: request))
            handle.proxyOverridden = false
        }
    }

    /// The resolved trust policy of a proxy the selector chose, read once per distinct proxy
    /// (reading CA files on the curl thread once, not at every hop).
    private func selectedProxyTrust(_ proxy: ProxyConfiguration) -> Result<ResolvedTrustPolicy, TrustConfigurationProblem>? {
        guard proxy.isExplicitHTTPS else { return nil }
        if let known = selectedTrusts[proxy] { return known }
        let resolved = proxy.resolvedTrust()
        if selectedTrusts.count >= 64 { selectedTrusts.removeAll() }
        selectedTrusts[proxy] = resolved
        return resolved
    }

    /// Sets the request's HTTP/2 stream weight (`CURLOPT_STREAM_WEIGHT`) on `handle`, or
    /// libcurl's default (16) again where an earlier request set one.
    func prepareStreamWeight(_ weight: Int?, on handle: EasyHandle, request: OutgoingRequest) throws(CurlewError) {
        guard weight != nil || handle.hasStreamWeight else { return }
        handle.hasStreamWeight = weight != nil
        try EasyOptions(handle: handle.pointer, request: request).set(CURLOPT_STREAM_WEIGHT, weight ?? 16)
    }

    /// Points `handle` at the hop's Unix-domain socket, or clears the socket an earlier hop
    /// left on it; nothing for the common case of neither.
    func prepareUnixSocket(_ route: UnixSocketRoute?, on handle: EasyHandle, request: OutgoingRequest) throws(CurlewError) {
        let options = EasyOptions(handle: handle.pointer, request: request)
        if let route {
            handle.onUnixSocket = true
            try options.set(CURLOPT_UNIX_SOCKET_PATH, route.path)
        } else if handle.onUnixSocket {
            try options.check(
                curlew_easy_setopt_string(handle.pointer, CURLOPT_UNIX_SOCKET_PATH, nil), CURLOPT_UNIX_SOCKET_PATH)
            handle.onUnixSocket = false
        }
    }

    /// Every proxy option, so none of another configuration survives on a reused handle;
    /// `trust` is the proxy's own policy, resolved (see ``ProxyConfiguration/resolvedTrust()``).
    private func applyProxy(
        _ proxy: ProxyConfiguration, trust: Result<ResolvedTrustPolicy, TrustConfigurationProblem>?,
        on easy: EasyHandle, _ options: EasyOptions
    ) throws(CurlewError) {
        try applyProxyTrust(trust, of: proxy, on: easy, options)
        let handle = options.handle
        switch proxy.mode {
        case .none:
            // An empty proxy string makes libcurl ignore the environment's proxy variables, and
            // an empty bypass list its `no_proxy`: without one, libcurl 7.88 looks `no_proxy` and
            // `NO_PROXY` up in the environment on every request (about 550 instructions) before
            // it finds there is no proxy to bypass.
            try options.set(CURLOPT_PROXY, "")
            try options.set(CURLOPT_NOPROXY, "")
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
        try options.set(CURLOPT_PROXYAUTH, proxy.authentication.curlMask)
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
