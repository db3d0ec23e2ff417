import Foundation

/// Chooses the proxy for each request from the URL it goes to, as a PAC file's
/// `FindProxyForURL` does: ``ProxyConfiguration/direct``, an HTTP or HTTPS proxy, or a SOCKS
/// proxy (``ProxyConfiguration/explicit(_:host:port:username:password:authentication:bypassing:trust:)``).
///
/// ```swift
/// configuration.proxySelector = ProxySelector { url in
///     switch url.host {
///     case "intranet.corp", "wiki.corp": .direct
///     case let host? where host.hasSuffix(".onion"): .explicit(.socks5h, host: "127.0.0.1", port: 9050)
///     default: .explicit(.http, host: "proxy.corp", port: 3128, username: "svc", password: secret)
///     }
/// }
/// ```
///
/// The closure is asked for **every hop**: the first request, each redirect Curlew follows
/// (with the URL the redirect leads to), and each retry. A choice made for one host — its
/// proxy, its proxy credentials — therefore never carries a redirect to another host: that
/// hop gets the choice for its own URL. A request's own ``RequestOptions/proxy`` wins over the
/// selector, for all its hops; the session's ``SessionConfiguration/proxy`` is not used while
/// a selector is set.
///
/// The closure runs on the session's network thread, before the hop connects: keep it quick
/// and free of blocking work (no DNS lookups, no I/O). A choice that is not valid (see
/// ``ProxyConfiguration/explicit(_:host:port:username:password:authentication:bypassing:trust:)``)
/// fails the hop with ``CurlewError/Kind/invalidRequest`` before any connection.
/// `cURLDescription()` prints the choice for the request's URL (`-x …`, or `--noproxy '*'`).
public struct ProxySelector: Sendable {
    private let choose: @Sendable (URL) -> ProxyConfiguration

    /// A selector that asks `choose` for the proxy of each hop's URL.
    public init(_ choose: @escaping @Sendable (URL) -> ProxyConfiguration) {
        self.choose = choose
    }

    /// The proxy for a hop to `url`.
    public func proxy(for url: URL) -> ProxyConfiguration {
        choose(url)
    }
}
