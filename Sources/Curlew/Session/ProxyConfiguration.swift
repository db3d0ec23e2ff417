import Foundation

/// Whether and how requests go through a proxy: per session (``SessionConfiguration/proxy``),
/// with a per-request override (``RequestOptions/proxy``).
///
/// The default is ``environment``: the proxy variables curl reads (`http_proxy`,
/// `https_proxy`/`HTTPS_PROXY`, `all_proxy`/`ALL_PROXY`, `no_proxy`/`NO_PROXY`, with curl's
/// rules — `HTTP_PROXY` in upper case is ignored, as a CGI program could be made to set it),
/// except that requests to `localhost`, `127.0.0.0/8` and `::1` never go through an
/// environment proxy. ``direct`` ignores the environment. A session reads the environment when it
/// is made: if no proxy variable is set then, its requests use no proxy.
///
/// ```swift
/// var configuration = SessionConfiguration()
/// configuration.proxy = .explicit(.socks5h, host: "127.0.0.1", port: 1080,
///                                 username: "me", password: secret, bypassing: ["internal.example"])
/// ```
///
/// An ``Kind/https`` proxy is reached over TLS of its own, before any tunnel: give it a
/// ``TrustPolicy`` of its own with `trust:` (the session's ``TrustConfiguration`` governs the
/// origins, inside the tunnel, and never the proxy):
///
/// ```swift
/// configuration.proxy = .explicit(.https, host: "proxy.internal", port: 3129,
///                                 trust: .certificateAuthorities([.file("/etc/corp/proxy-ca.pem")]))
/// ```
///
/// A ``ProxySelector`` (``SessionConfiguration/proxySelector``) chooses one of these for each
/// request and redirect hop from the URL, as a PAC file does.
///
/// Proxy credentials never appear in errors, logs or `cURLDescription()`.
public struct ProxyConfiguration: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The protocol spoken to an explicit proxy.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// An HTTP proxy: absolute-form requests for http URLs, `CONNECT` tunnels for https.
        case http
        /// An HTTP proxy reached over TLS, verified by the `trust` policy given to
        /// ``ProxyConfiguration/explicit(_:host:port:username:password:authentication:bypassing:trust:)``
        /// (the system's certificate authorities unless given).
        case https
        /// SOCKS4 (curl's `socks4://`): the client resolves the host name and sends an IPv4
        /// address; a `username` goes as the SOCKS4 user ID, and SOCKS4 has no password.
        case socks4
        /// SOCKS4a (`socks4a://`): the host name goes to the proxy, which resolves it; a
        /// `username` is the user ID, and there is no password.
        case socks4a
        /// SOCKS5 (`socks5://`): the client resolves the host name and sends an address;
        /// `username` and `password` authenticate (RFC 1929).
        case socks5
        /// SOCKS5 with the host name sent to the proxy, which resolves it (`socks5h://`):
        /// names only the proxy's side can resolve work, and the client's DNS sees none.
        case socks5h

        /// Whether this is a SOCKS proxy, which takes no HTTP authentication.
        var isSOCKS: Bool { self != .http && self != .https }

        /// Whether the proxy protocol carries a password: SOCKS4 and SOCKS4a have a user ID only.
        var carriesPassword: Bool { self != .socks4 && self != .socks4a }
    }

    enum Mode: Sendable, Hashable {
        case none
        case environment
        case explicit(kind: Kind, host: String, port: Int, username: String?, password: String?, bypassing: [String])
    }

    let mode: Mode
    /// How an explicit HTTPS proxy's own TLS is trusted; ``ProxyTrust/system`` otherwise.
    let trust: ProxyTrust
    /// How an explicit HTTP or HTTPS proxy is answered when it asks for credentials
    /// (`CURLOPT_PROXYAUTH`); ``HTTPAuthenticationMethod/basic`` otherwise.
    let authentication: HTTPAuthenticationMethod

    private init(mode: Mode, trust: ProxyTrust = .system, authentication: HTTPAuthenticationMethod = .basic) {
        self.mode = mode
        self.trust = trust
        self.authentication = authentication
    }

    /// Never a proxy, whatever the environment says.
    public static let direct = ProxyConfiguration(mode: .none)

    /// The proxy the environment names, as curl reads it; never for loopback hosts. An HTTPS
    /// proxy named there is verified with the system's certificate authorities.
    public static let environment = ProxyConfiguration(mode: .environment)

    /// An explicit proxy. `bypassing` lists hosts reached directly: names (matching their
    /// subdomains too), IP addresses, or CIDR ranges such as `10.0.0.0/8`; `*` bypasses all.
    ///
    /// `trust` is how an ``Kind/https`` proxy's own certificate is checked, apart from the
    /// origins' (``SessionConfiguration/trust``): ``TrustPolicy/systemTrust`` (the default),
    /// ``TrustPolicy/systemTrust(adding:)``, ``TrustPolicy/certificateAuthorities(_:)``,
    /// ``TrustPolicy/publicKeys(_:validateChain:)`` (for a proxy the pin must match the key of
    /// the certificate it presents, its leaf), optionally ``TrustPolicy/validatingChain(against:)``,
    /// and ``TrustPolicy/insecureNoEvaluation(reason:)``, each with its minimum TLS version and
    /// client certificate. libcurl checks them in the handshake with the proxy. Pinned
    /// certificates, fingerprints and custom evaluations cannot be checked on a proxy, and a
    /// policy other than ``TrustPolicy/systemTrust`` for a proxy that is not ``Kind/https``
    /// would check nothing: requests with either fail with ``CurlewError/Kind/invalidRequest``.
    /// A proxy whose certificate fails its policy fails the request with
    /// ``CurlewError/Kind/proxyFailure``, naming the proxy.
    ///
    /// `authentication` is how the credentials answer an ``Kind/http`` or ``Kind/https`` proxy
    /// (`CURLOPT_PROXYAUTH`, curl's `--proxy-digest`, `--proxy-ntlm`, `--proxy-anyauth`,
    /// `--proxy-negotiate`): ``HTTPAuthenticationMethod/basic`` (the default) sends them with
    /// every request; the others answer the proxy's `407` challenge (Digest sends the first
    /// request without credentials, NTLM opens with its Type 1 message), so that the password
    /// never crosses the wire. A method other than Basic
    /// for a SOCKS proxy (which has its own authentication), or one the installed libcurl
    /// lacks (``HTTPAuthenticationMethod/isSupported``), fails requests with
    /// ``CurlewError/Kind/invalidRequest``; so does a `password` for ``Kind/socks4`` or
    /// ``Kind/socks4a``, which have a user ID only and would drop it.
    public static func explicit(
        _ kind: Kind, host: String, port: Int, username: String? = nil, password: String? = nil,
        authentication: HTTPAuthenticationMethod = .basic, bypassing: [String] = [], trust: TrustPolicy = .systemTrust
    ) -> ProxyConfiguration {
        ProxyConfiguration(
            mode: .explicit(
                kind: kind, host: host, port: port, username: username, password: password, bypassing: bypassing),
            trust: ProxyTrust(trust), authentication: authentication)
    }

    /// Whether libcurl answers a `407` challenge of this proxy itself, resending the request
    /// with credentials: an explicit HTTP(S) proxy with a user name and a method other than Basic.
    var answersChallenges: Bool {
        guard case .explicit(let kind, _, _, let username, _, _) = mode, !kind.isSOCKS, username != nil else { return false }
        return !authentication.isPreemptive
    }

    /// Whether libcurl speaks TLS to this proxy before anything else: an explicit HTTPS proxy.
    var isExplicitHTTPS: Bool {
        if case .explicit(.https, _, _, _, _, _) = mode { return true }
        return false
    }

    /// The hosts no environment proxy is used for, beside those of `no_proxy`.
    static let loopbackHosts = ["localhost", "127.0.0.0/8", "::1"]

    /// The proxy's URL without credentials, for messages; nil unless explicit.
    var displayURL: String? {
        guard case .explicit(let kind, let host, let port, _, _, _) = mode else { return nil }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(kind.rawValue)://\(bracketed):\(port)"
    }

    /// The HTTPS proxy's own trust policy checked and ready for libcurl (its files read); nil
    /// when libcurl's defaults apply: another kind of proxy, ``TrustPolicy/systemTrust``, or a
    /// policy ``validate(url:)`` refuses.
    func resolvedTrust() -> Result<ResolvedTrustPolicy, TrustConfigurationProblem>? {
        guard isExplicitHTTPS, !trust.isSystemDefault, trust.problem == nil else { return nil }
        do {
            return .success(try trust.resolved())
        } catch {
            return .failure(error)
        }
    }

    /// Checks what libcurl would otherwise reject with a vaguer message.
    func validate(url: URL?) throws(CurlewError) {
        guard case .explicit(let kind, let host, let port, let username, let password, let bypassing) = mode else { return }
        guard !host.isEmpty, host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "@") }) else {
            throw CurlewError(.invalidRequest, "the proxy host '\(host.prefix(80))' is not a host name or address", url: url)
        }
        guard (1...65535).contains(port) else {
            throw CurlewError(.invalidRequest, "the proxy port \(port) is not between 1 and 65535", url: url)
        }
        for value in [username, password].compactMap({ $0 }) + bypassing where value.utf8.contains(where: { $0 < 0x20 }) {
            throw CurlewError(.invalidRequest, "a proxy setting contains a control character", url: url)
        }
        if password != nil, !kind.carriesPassword {
            throw CurlewError(
                .invalidRequest,
                "the proxy \(displayURL ?? "") speaks \(kind.rawValue), which carries a user ID but no password; give no password",
                url: url)
        }
        if authentication != .basic {
            if kind.isSOCKS {
                throw CurlewError(
                    .invalidRequest,
                    "the proxy \(displayURL ?? "") is a SOCKS proxy, which takes no \(authentication) authentication; use .basic",
                    url: url)
            }
            guard authentication.isSupported else {
                throw CurlewError(
                    .invalidRequest,
                    "the installed libcurl (\(HTTPAuthenticationMethod.libcurlVersion)) cannot authenticate with the proxy \(displayURL ?? "") by \(authentication)",
                    url: url)
            }
        }
        guard isExplicitHTTPS || trust.isSystemDefault else {
            throw CurlewError(
                .invalidRequest,
                "the proxy \(displayURL ?? "") is not an https proxy, so its trust policy (\(trust.policy)) would check nothing",
                url: url)
        }
        if let problem = trust.problem {
            throw CurlewError(.invalidRequest, "the trust policy of the proxy \(displayURL ?? "") cannot be used: \(problem)", url: url)
        }
    }

    /// The environment proxy curl would use for `url`, without credentials, for messages.
    static func environmentProxy(for url: URL, environment: [String: String] = ProcessInfo.processInfo.environment)
        -> String?
    {
        let names = url.scheme?.lowercased() == "https" ? httpsProxyVariables : httpProxyVariables
        return firstSet(names, in: environment).map { "\(Redaction.string($0.value)) (from \($0.name))" }
    }

    /// The first of `names` set to a non-empty value in `environment`, as curl takes them.
    private static func firstSet(_ names: [String], in environment: [String: String]) -> (name: String, value: String)? {
        for name in names {
            if let value = environment[name], !value.isEmpty { return (name, value) }
        }
        return nil
    }

    /// The variables curl reads for an http and an https URL's proxy, in its order; `HTTP_PROXY`
    /// in upper case is not one (a CGI program could be made to set it).
    private static let httpProxyVariables = ["http_proxy", "all_proxy", "ALL_PROXY"]
    private static let httpsProxyVariables = ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]

    /// This configuration for a session made now: ``environment`` when the environment names no
    /// proxy is ``none``, so that libcurl neither reads the environment nor matches the host
    /// against the bypass list on every request (about 600 instructions); any other is itself.
    /// The environment is read once, as `no_proxy` is.
    func resolvingEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> ProxyConfiguration {
        guard case .environment = mode else { return self }
        let namesProxy = Self.firstSet(Self.httpProxyVariables, in: environment) != nil
            || Self.firstSet(Self.httpsProxyVariables, in: environment) != nil
        return namesProxy ? self : .direct
    }

    /// `no_proxy` (or `NO_PROXY`) from the environment, plus the loopback hosts.
    static func environmentBypassList(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let own = (environment["no_proxy"] ?? environment["NO_PROXY"] ?? "")
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if own.contains("*") { return "*" }
        return (own + loopbackHosts).joined(separator: ",")
    }

    public var description: String {
        switch mode {
        case .none: return "no proxy"
        case .environment: return "the environment's proxy"
        case .explicit:
            let name = displayURL ?? "a proxy"
            return isExplicitHTTPS && !trust.isSystemDefault ? "\(name) (trusted by \(trust.policy))" : name
        }
    }

    /// The proxy as ``description`` names it, with its user name; the password shows as `***`,
    /// so that `dump` and the debugger do not show it.
    public var customMirror: Mirror {
        guard case .explicit(_, _, _, let username, let password, let bypassing) = mode else {
            return Mirror(self, children: ["proxy": description])
        }
        return Mirror(
            self,
            children: [
                "proxy": description, "username": username as Any,
                "password": password.map { _ in Redaction.placeholder } as Any, "authentication": authentication,
                "bypassing": bypassing,
            ])
    }
}
