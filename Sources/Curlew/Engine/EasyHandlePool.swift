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
    private let configuration: SessionConfiguration
    private let share: UnsafeMutableRawPointer?
    private var idle: [UnsafeMutableRawPointer] = []
    private let maximumIdle = 256
    /// The headers every request gets — the User-Agent and the session's default headers — as
    /// one libcurl list, made once and shared by the requests that add none of their own.
    /// Freed by ``removeAll()``, after the last handle.
    private(set) var sessionHeaders: UnsafeMutablePointer<curl_slist>?

    init(configuration: SessionConfiguration, share: UnsafeMutableRawPointer?) {
        self.configuration = configuration
        self.share = share
        let fields = TransferContext.withSessionHeaders(
            [:], userAgent: configuration.userAgent, defaults: configuration.defaultHeaders)
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
        } catch {
            curl_easy_cleanup(handle)
            throw error
        }
        return handle
    }

    /// Returns a handle that is no longer in the multi handle.
    func recycle(_ handle: UnsafeMutableRawPointer) {
        if idle.count < maximumIdle {
            idle.append(handle)
        } else {
            curl_easy_cleanup(handle)
        }
    }

    /// Frees every idle handle.
    func removeAll() {
        for handle in idle { curl_easy_cleanup(handle) }
        idle.removeAll()
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
        let tls = configuration.tls
        try options.set(CURLOPT_SSL_VERIFYPEER, tls.verifyPeer ? 1 : 0)
        try options.set(CURLOPT_SSL_VERIFYHOST, tls.verifyHost ? 2 : 0)
        if let path = tls.caCertificatePath { try options.set(CURLOPT_CAINFO, path) }
        if !tls.pinnedPublicKeys.isEmpty {
            for pin in tls.pinnedPublicKeys where !pin.hasPrefix("sha256//") {
                throw CurlewError(.invalidRequest, "pinned key '\(pin)' must have the form sha256//BASE64", url: url)
            }
            try options.set(CURLOPT_PINNEDPUBLICKEY, tls.pinnedPublicKeys.joined(separator: ";"))
        }
        if let path = tls.clientCertificatePath { try options.set(CURLOPT_SSLCERT, path) }
        if let path = tls.clientKeyPath { try options.set(CURLOPT_SSLKEY, path) }
    }
}
