import CCurlShims
import Foundation

/// Turns libcurl's codes into ``CurlewError``s, so that no call site handles raw codes.
enum CurlErrorMapping {
    static func error(for code: CURLcode, message: String, context: TransferContext, metrics: TransferMetrics) -> CurlewError {
        let curlText = String(cString: curl_easy_strerror(code))
        let detail = message.isEmpty ? curlText : message
        if code == CURLE_COULDNT_CONNECT, let socket = context.unixSocket {
            return CurlewError(
                .connectionRefused, unixSocketFailure(socket.path, context: context), url: context.request.url,
                curlCode: Int(code.rawValue), curlMessage: curlText)
        }
        if let proxy = proxyInUse(context: context),
            let text = proxyFailureText(code, detail: detail, proxy: proxy, context: context)
        {
            return CurlewError(
                .proxyFailure, text, url: context.request.url, curlCode: Int(code.rawValue), curlMessage: curlText)
        }
        let kind: CurlewError.Kind
        let text: String
        switch code {
        case CURLcode(rawValue: 100):
            // CURLE_TOO_LARGE, which libcurl 8.6 and later report instead of running out of memory.
            (kind, text) = classifyOutOfMemory(context: context)
        case CURLE_COULDNT_CONNECT:
            kind = .connectionRefused
            text = "could not connect: \(detail)"
        case CURLE_COULDNT_RESOLVE_HOST:
            kind = .hostNotFound
            if let doh = context.settings.session.network.dnsOverHTTPS {
                // libcurl reports no more than that: why its own lookup transfers failed (a
                // certificate not trusted, a refused connection) shows only in its verbose text.
                text = "the host could not be resolved through the DNS-over-HTTPS server \(Redaction.string(doh.url)): "
                    + "no lookup there answered with an address (the server may be unreachable, its certificate not "
                    + "trusted by the request's trust policy, or the name unknown to it)"
            } else {
                text = "the host could not be resolved"
            }
        case CURLE_OPERATION_TIMEDOUT:
            (kind, text) = classifyTimeout(detail, context: context, metrics: metrics)
        case CURLE_PARTIAL_FILE:
            kind = .connectionClosedMidBody
            text = "the server closed the connection before the whole body arrived: \(detail)"
        case CURLE_WEIRD_SERVER_REPLY, CURLE_UNSUPPORTED_PROTOCOL, CURLE_GOT_NOTHING, CURLE_BAD_CONTENT_ENCODING,
            CURLE_HTTP2, CURLE_HTTP2_STREAM:
            kind = .malformedResponse
            text = "the server's response is not valid HTTP: \(detail)"
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS,
            CURLE_SSL_ISSUER_ERROR, CURLE_SSL_CRL_BADFILE, CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_ENGINE_INITFAILED:
            kind = .tlsFailure
            text = "TLS failed: \(detail)"
        case CURLE_URL_MALFORMAT:
            kind = .invalidURL
            text = "libcurl rejected the URL: \(detail)"
        case CURLE_FILESIZE_EXCEEDED:
            kind = .bodyTooLarge
            text = "the body exceeds the maximum size"
        case CURLE_READ_ERROR, CURLE_ABORTED_BY_CALLBACK:
            kind = .uploadFailed
            text = "the upload body could not be read: \(detail)"
        case CURLE_OUT_OF_MEMORY:
            (kind, text) = classifyOutOfMemory(context: context)
        case CURLE_RECV_ERROR where isChunkedEncodingError(message):
            kind = .malformedResponse
            text = "bad chunked encoding: \(detail)"
        default:
            kind = .transport
            text = detail
        }
        return CurlewError(kind, text, url: context.request.url, curlCode: Int(code.rawValue), curlMessage: curlText)
    }

    /// libcurl 7.88 reports its fixed buffer limits as "out of memory": the request head (URL
    /// and header fields) is built in at most 1 MiB, and a response header line may be at most
    /// 100 KiB (`CURL_MAX_HTTP_HEADER`). Which one it was shows in how far the transfer got.
    private static func classifyOutOfMemory(context: TransferContext) -> (CurlewError.Kind, String) {
        var requestSize = 0
        if let handle = context.handle { _ = curlew_easy_getinfo_long(handle, CURLINFO_REQUEST_SIZE, &requestSize) }
        if requestSize == 0 {
            return (
                .invalidRequest,
                "the request head is too large: libcurl builds the URL and header fields in at most \(libcurlRequestHeadLimit >> 10) KiB"
            )
        }
        if context.finalHead == nil {
            return (
                .malformedResponse,
                "header line too long: a response header line exceeds libcurl's limit of \(libcurlHeaderLineLimit >> 10) KiB"
            )
        }
        return (.transport, "libcurl ran out of memory")
    }

    /// libcurl 7.88's largest request head (`DYN_HTTP_REQUEST`), URL and header fields together.
    static let libcurlRequestHeadLimit = 1 << 20
    /// libcurl 7.88's longest response header line (`CURL_MAX_HTTP_HEADER`).
    static let libcurlHeaderLineLimit = 100 << 10

    /// libcurl's chunk parser fails with `CURLE_RECV_ERROR` and a message that ends in "in
    /// chunked-encoding" (for example "Illegal or missing hexadecimal sequence in chunked-encoding").
    private static func isChunkedEncodingError(_ message: String) -> Bool {
        message.range(of: "chunk", options: .caseInsensitive) != nil
    }

    /// libcurl times out on the connect and total limits and on the minimum speed (the idle
    /// timeout is the curl loop's, see `CurlLoop`): before a connection it is the connect timeout.
    private static func classifyTimeout(
        _ detail: String, context: TransferContext, metrics: TransferMetrics
    ) -> (CurlewError.Kind, String) {
        let timeouts = context.settings.timeouts
        // libcurl's low-speed check: "Operation too slow. Less than N bytes/sec transferred…".
        if let speed = timeouts.minimumSpeed, detail.range(of: "too slow", options: .caseInsensitive) != nil {
            return (
                .tooSlow,
                "the transfer moved less than \(speed.bytesPerSecond) bytes per second over the last \(speed.curlSeconds) s")
        }
        let elapsed = ContinuousClock.now - context.startInstant
        if let total = timeouts.total, elapsed >= total * 0.95 {
            return (.totalTimeout, "the transfer took longer than \(total)")
        }
        if metrics.connect == .zero, let connect = timeouts.connect {
            return (.connectTimeout, "no connection within \(connect)")
        }
        return (.totalTimeout, "the transfer timed out: \(detail)")
    }

    /// Why a Unix-domain socket took no connection, from the `connect` error libcurl saw
    /// (libcurl itself speaks of "localhost port 80").
    private static func unixSocketFailure(_ path: String, context: TransferContext) -> String {
        var osError = 0
        if let handle = context.handle { _ = curlew_easy_getinfo_long(handle, CURLINFO_OS_ERRNO, &osError) }
        let shown = Redaction.string(path)
        switch Int32(osError) {
        case ENOENT: return "the Unix socket \(shown) does not exist"
        case ECONNREFUSED: return "nothing accepts connections on the Unix socket \(shown) (connection refused)"
        case EACCES, EPERM: return "no permission to connect to the Unix socket \(shown)"
        case ENOTSOCK: return "\(shown) is not a Unix socket"
        case 0: return "could not connect to the Unix socket \(shown)"
        default:
            return "could not connect to the Unix socket \(shown): \(String(cString: strerror(Int32(osError))))"
        }
    }

    // MARK: Proxies

    /// The proxy the request went through, named for a message (without credentials); nil
    /// when it went directly (also over a Unix-domain socket, where libcurl uses no proxy).
    /// Reads the environment: for failure paths only.
    static func proxyInUse(context: TransferContext) -> String? {
        if context.unixSocket != nil { return nil }
        let proxy = context.proxy
        let host = (context.request.url.host ?? "").lowercased()
        switch proxy.mode {
        case .none:
            return nil
        case .environment:
            let bypass = ProxyConfiguration.environmentBypassList().split(separator: ",").map(String.init)
            if bypass.contains("*") || isLoopback(host) || bypass.contains(where: { matches(host, $0) }) { return nil }
            return ProxyConfiguration.environmentProxy(for: context.request.url)
        case .explicit(_, _, _, _, _, let bypassing):
            if bypassing.contains("*") || bypassing.contains(where: { matches(host, $0) }) { return nil }
            return proxy.displayURL
        }
    }

    private static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
    }

    /// curl's `no_proxy` rule for names: the host itself or a subdomain of the entry.
    private static func matches(_ host: String, _ entry: String) -> Bool {
        let name = entry.hasPrefix(".") ? String(entry.dropFirst()) : entry.lowercased()
        return !name.isEmpty && (host == name || host.hasSuffix("." + name))
    }

    /// What went wrong at the proxy, or nil when the failure is the target's.
    private static func proxyFailureText(_ code: CURLcode, detail: String, proxy: String, context: TransferContext) -> String? {
        // The proxy's answer to `CONNECT` (0 when none came): anything but 2xx refused the tunnel.
        var tunnelStatus = 0
        if let handle = context.handle { _ = curlew_easy_getinfo_long(handle, CURLINFO_HTTP_CONNECTCODE, &tunnelStatus) }
        if tunnelStatus != 0, !(200..<300).contains(tunnelStatus) {
            return tunnelRefusal(tunnelStatus, proxy: proxy, url: context.request.url)
        }
        switch code {
        case CURLE_COULDNT_RESOLVE_PROXY:
            return "the proxy \(proxy) could not be resolved"
        case CURLcode(rawValue: 97):
            // CURLE_PROXY: a SOCKS handshake failed (refused credentials, unreachable target).
            return "the proxy \(proxy) refused the request: \(detail)"
        case CURLE_COULDNT_CONNECT:
            return "could not connect to the proxy \(proxy): \(detail)"
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            // Curlew pins origins after the handshake (TrustEvaluator), never with
            // CURLOPT_PINNEDPUBLICKEY: libcurl's pin check is the proxy's.
            return "the proxy \(proxy) is not trusted: its public key matches no pin of its trust policy"
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_CRL_BADFILE, CURLE_SSL_INVALIDCERTSTATUS:
            return failedTLSWithProxy(context, tunnelStatus: tunnelStatus) ? "TLS with the proxy \(proxy) failed: \(detail)" : nil
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_WEIRD_SERVER_REPLY, CURLE_GOT_NOTHING:
            if detail.contains("SSL"), failedTLSWithProxy(context, tunnelStatus: tunnelStatus) {
                // A TLS 1.3 server refuses a client certificate (or its absence) after the
                // client's side of the handshake, so libcurl sees it as a failed read.
                return "TLS with the proxy \(proxy) failed: \(detail)"
            }
            // The proxy closed the connection (a TLS proxy may reset it for a client certificate
            // it refuses) or answered `CONNECT` with something not HTTP: before the tunnel was
            // open, the failure is the proxy's; after, the target's.
            let beforeTunnel = detail.contains("CONNECT") || (tunnelStatus == 0 && tunnels(context) && isNewConnection(context))
            return beforeTunnel ? "the proxy \(proxy) could not open a tunnel: \(detail)" : nil
        default:
            return nil
        }
    }

    /// Whether a TLS failure was the HTTPS proxy's rather than the target's. TLS with the proxy
    /// comes first, on a connection made for this transfer: it failed there if no tunnel was
    /// answered yet, or if the target is plain HTTP (then the proxy's is the only TLS). On a
    /// reused connection both TLS layers were up before, and the failure is left to the target.
    private static func failedTLSWithProxy(_ context: TransferContext, tunnelStatus: Int) -> Bool {
        guard speaksTLS(to: context.proxy, url: context.request.url), isNewConnection(context) else { return false }
        return tunnelStatus == 0 || context.request.url.scheme?.lowercased() != "https"
    }

    /// Whether the hop made a connection of its own rather than reusing one.
    private static func isNewConnection(_ context: TransferContext) -> Bool {
        guard let handle = context.handle else { return false }
        var connects = 0
        _ = curlew_easy_getinfo_long(handle, CURLINFO_NUM_CONNECTS, &connects)
        return connects > 0
    }

    /// Whether the hop goes through an HTTP or HTTPS proxy's `CONNECT` tunnel: an https URL
    /// through a proxy that is not SOCKS.
    private static func tunnels(_ context: TransferContext) -> Bool {
        let url = context.request.url
        guard url.scheme?.lowercased() == "https" else { return false }
        switch context.proxy.mode {
        case .none: return false
        case .environment:
            guard let proxy = ProxyConfiguration.environmentProxy(for: url)?.lowercased() else { return false }
            return !proxy.hasPrefix("socks")
        case .explicit(let kind, _, _, _, _, _): return kind == .http || kind == .https
        }
    }

    /// A proxy's refusal of a `CONNECT` tunnel, by its status.
    private static func tunnelRefusal(_ status: Int, proxy: String, url: URL) -> String {
        if status == 407 {
            return "the proxy \(proxy) requires credentials it was not given or did not accept (407)"
        }
        let target = "\(url.host ?? "?"):\(url.port ?? (url.scheme?.lowercased() == "http" ? 80 : 443))"
        return "the proxy \(proxy) refused the tunnel to \(target) (\(status))"
    }

    /// Whether `proxy` is reached over TLS for `url` (an HTTPS proxy).
    private static func speaksTLS(to proxy: ProxyConfiguration, url: URL) -> Bool {
        switch proxy.mode {
        case .none: return false
        case .environment:
            return ProxyConfiguration.environmentProxy(for: url)?.lowercased().hasPrefix("https://") == true
        case .explicit(let kind, _, _, _, _, _): return kind == .https
        }
    }
}
