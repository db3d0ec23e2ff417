import Foundation

/// Host names resolved through a DNS-over-HTTPS server (RFC 8484) instead of the system's
/// resolver (`CURLOPT_DOH_URL`, curl's `--doh-url`).
///
/// ```swift
/// configuration.network.dnsOverHTTPS = DNSOverHTTPS(url: URL(string: "https://dns.example/dns-query")!)
/// ```
///
/// libcurl makes the lookups itself, as transfers of its own beside the request: an `A` query
/// (and an `AAAA` query where IPv6 works) is POSTed as `application/dns-message` for each
/// name that is not in the session's DNS cache. Entries of ``NetworkControls/hostAddresses``
/// still win. The lookups:
/// - are checked as ``trust`` says, against the certificate authorities of the request's own
///   ``TrustPolicy`` (libcurl 7.88 has no options for a DoH server's authorities: its lookups
///   take the request's `CURLOPT_CAINFO`, CA blob, CA path and CRL file). An authority trusted
///   to vouch for a host is so also trusted to answer for that host's name, and no further.
/// - go straight to the server, or through the proxy the environment names (libcurl reads
///   `https_proxy`, `all_proxy` and `no_proxy` for them, whatever the session's
///   ``ProxyConfiguration``). A session whose proxy differs from what the lookups would use — a
///   ``ProxyConfiguration/direct`` or explicit proxy while the environment names one for the
///   DoH server, or a DoH server on loopback, which the session's own requests never send to
///   the environment's proxy — fails every request with ``CurlewError/Kind/invalidRequest``:
///   name the DoH host in `no_proxy`.
///
/// Session-wide only: answers go into the session's DNS cache, which every request shares.
public struct DNSOverHTTPS: Sendable, Hashable {
    /// The server's URL, such as `https://dns.example/dns-query`; it must be https, with a
    /// host and without a user name or password.
    public var url: URL
    /// How the server's certificate is checked.
    public var trust: DNSOverHTTPSTrust

    /// Lookups at `url`, checked as `trust` says (by default, chain and host name).
    public init(url: URL, trust: DNSOverHTTPSTrust = .verified) {
        self.url = url
        self.trust = trust
    }

    /// Why the server cannot be used, or nil.
    var problem: String? {
        let text = url.absoluteString
        let shown = String(Redaction.string(url).prefix(200)).debugDescription
        if text.contains(where: { $0.isWhitespace || $0 == "\0" }) {
            return "dnsOverHTTPS: the URL \(shown) holds white space or control characters"
        }
        guard url.scheme?.lowercased() == "https" else {
            return "dnsOverHTTPS: the URL \(shown) must be https (libcurl makes DNS-over-HTTPS lookups over https only)"
        }
        guard let host = url.host, !host.isEmpty else { return "dnsOverHTTPS: the URL \(shown) has no host" }
        if url.user != nil || url.password != nil {
            return "dnsOverHTTPS: the URL \(shown) must not carry a user name or password"
        }
        if case .insecureNoEvaluation(let reason) = trust, reason.isEmpty {
            return "dnsOverHTTPS: insecureNoEvaluation needs a reason"
        }
        return nil
    }

    /// Why libcurl's lookups would not go the way the session's requests go (see the type's
    /// documentation), or nil: they would go through the proxy `environment` names while the
    /// session's own requests to that host would not.
    func environmentProxyProblem(sessionProxy: ProxyConfiguration, environment: [String: String]) -> String? {
        guard problem == nil, let host = url.host.map(Self.unbracketed),
            let proxy = ProxyConfiguration.environmentProxy(for: url, environment: environment)
        else { return nil }
        let noProxy = environment["no_proxy"] ?? environment["NO_PROXY"] ?? ""
        if Self.bypasses(noProxy, host: host) { return nil }
        let isLoopback = host.lowercased() == "localhost" || host.hasPrefix("127.") || host == "::1"
        if case .environment = sessionProxy.mode, !isLoopback { return nil }
        let why = isLoopback ? "though the session never sends requests to a loopback host through it"
            : "though the session's proxy is \(sessionProxy)"
        return "dnsOverHTTPS: libcurl would send the lookups to \(host) through the environment's proxy \(proxy), "
            + "\(why); name \(host) in no_proxy to send them straight"
    }

    /// Whether a `no_proxy` list (curl's form: `*`, or host names and domain suffixes separated
    /// by commas) names `host`. Address ranges (`10.0.0.0/8`) are not matched here: such a list
    /// counts as not naming the host, and the session refuses rather than guesses.
    static func bypasses(_ noProxy: String, host: String) -> Bool {
        let name = host.lowercased()
        for entry in noProxy.split(separator: ",") {
            var pattern = entry.trimmingCharacters(in: .whitespaces).lowercased()
            if pattern == "*" { return true }
            pattern = unbracketed(pattern)
            if pattern.hasPrefix(".") { pattern.removeFirst() }
            guard !pattern.isEmpty else { continue }
            if name == pattern || name.hasSuffix("." + pattern) { return true }
        }
        return false
    }

    /// `[::1]` as `::1`.
    static func unbracketed(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    /// curl's options for the server and its trust.
    var curlArguments: [String] {
        var parts = ["--doh-url", CURLCommand.quote(Redaction.string(url))]
        switch trust {
        case .verified: break
        case .verifiedWithOCSPStapling: parts.append("--doh-cert-status")
        case .insecureNoEvaluation: parts.append("--doh-insecure")
        }
        return parts
    }
}

/// How a ``DNSOverHTTPS`` server's certificate is checked (`CURLOPT_DOH_SSL_VERIFYPEER`,
/// `CURLOPT_DOH_SSL_VERIFYHOST` and `CURLOPT_DOH_SSL_VERIFYSTATUS`), apart from the request's own
/// TLS: a request under an insecure ``TrustPolicy`` still checks its DoH server, and the other
/// way round.
public enum DNSOverHTTPSTrust: Sendable, Hashable {
    /// The chain, against the certificate authorities of the request's ``TrustPolicy``, and the
    /// host name (the default).
    case verified
    /// As ``verified``, and the server must staple a good OCSP response (curl's `--doh-cert-status`).
    case verifiedWithOCSPStapling
    /// No check at all: whoever is on the path can answer for every name. Give the `reason`
    /// (logged at warning level once per session when the session starts its first request).
    case insecureNoEvaluation(reason: String)
}
