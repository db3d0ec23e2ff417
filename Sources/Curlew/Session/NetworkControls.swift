import Foundation

/// How a session's connections are made and kept: DNS overrides, DNS over HTTPS, the IP
/// version, the happy-eyeballs delay, the DNS cache, the connection pool's age limits and the
/// local end.
///
/// Everything is off by default (libcurl's defaults apply), and a session whose controls are
/// all off sets nothing for them. A bad value fails every request with
/// ``CurlewError/Kind/invalidRequest`` before any connection. ``RequestOptions`` may override
/// ``connectTo`` and ``ipVersion`` for one request; the rest hold for the whole session.
/// `cURLDescription()` prints each as its curl option (`--resolve`, `--connect-to`, `-4`/`-6`,
/// `--happy-eyeballs-timeout-ms`, `--interface`, `--local-port`, `--doh-url`); the DNS cache and pool limits
/// have no curl flag and are named in a trailing comment.
public struct NetworkControls: Sendable, Hashable {
    /// Addresses to use for a host and port instead of asking DNS (`CURLOPT_RESOLVE`, curl's
    /// `--resolve host:port:address`): the request still names the host (in `Host` and for
    /// TLS), but connects to one of these addresses. Each address must be an IPv4 or IPv6
    /// address (without brackets), and each list non-empty.
    ///
    /// Session-wide only: libcurl keeps these entries in the session's DNS cache, which every
    /// request of the session shares, so a per-request entry would reach other requests.
    /// Applies to the hosts Curlew connects to itself: through a proxy, the proxy resolves the origin.
    public var hostAddresses: [HostAndPort: [String]] = [:]
    /// Another host and port to connect to for a host and port (`CURLOPT_CONNECT_TO`, curl's
    /// `--connect-to host:port:host2:port2`): the request still names the first (in `Host`
    /// and for TLS, whose certificate must then match it). The target may be an IP address.
    /// A pooled connection made this way carries only requests with the same mapping.
    public var connectTo: [HostAndPort: HostAndPort] = [:]
    /// Which IP versions connections may use (`CURLOPT_IPRESOLVE`, curl's `-4`/`-6`).
    public var ipVersion: IPVersionPreference = .any
    /// How long a connection attempt to the first address family (usually IPv6) runs before
    /// the other is tried beside it (`CURLOPT_HAPPY_EYEBALLS_TIMEOUT_MS`, in milliseconds
    /// rounded up); zero or positive.
    /// Nil keeps libcurl's 200 ms.
    public var happyEyeballsDelay: Duration?
    /// How long a DNS answer is reused (`CURLOPT_DNS_CACHE_TIMEOUT`, whole seconds rounded
    /// up); zero caches nothing, negative is refused. Nil keeps libcurl's 60 s.
    public var dnsCacheLifetime: Duration?
    /// The longest an idle pooled connection is reused after its last transfer
    /// (`CURLOPT_MAXAGE_CONN`, whole seconds rounded up); positive. Nil keeps libcurl's 118 s.
    public var maximumConnectionIdleTime: Duration?
    /// The longest a connection is reused after it was opened, however busy
    /// (`CURLOPT_MAXLIFETIME_CONN`, whole seconds rounded up); positive. Nil is no limit.
    /// A connection past it finishes its transfer and is then closed.
    public var maximumConnectionLifetime: Duration?
    /// The local interface or address connections leave from (`CURLOPT_INTERFACE`); nil lets
    /// the system choose.
    public var outgoingInterface: OutgoingInterface?
    /// The local ports connections may leave from (`CURLOPT_LOCALPORT` and
    /// `CURLOPT_LOCALPORTRANGE`, curl's `--local-port`), tried in order; within 1...65535.
    /// Nil lets the system choose. When every port is taken the request fails.
    public var localPorts: ClosedRange<Int>?
    /// A DNS-over-HTTPS server that resolves the session's host names instead of the system's
    /// resolver (`CURLOPT_DOH_URL`, curl's `--doh-url`); nil (the default) uses the system's.
    /// See ``DNSOverHTTPS`` for its trust and the proxy its lookups take.
    public var dnsOverHTTPS: DNSOverHTTPS?
    /// Why the environment's proxy variables keep ``dnsOverHTTPS`` from being used, found once
    /// when the session is made (see ``DNSOverHTTPS/environmentProxyProblem(sessionProxy:environment:)``).
    var environmentProblem: String?

    /// Every control off.
    public init() {}

    /// Every control off: libcurl's defaults.
    public static var `default`: NetworkControls { NetworkControls() }

    /// Why a request cannot go with these controls, or nil.
    var problem: String? {
        for (key, addresses) in hostAddresses {
            if let problem = key.problemAsKey { return "hostAddresses: \(problem)" }
            if addresses.isEmpty { return "hostAddresses: no address for \(key)" }
            for address in addresses where !IPAddressText.isIPv4(address) && !IPAddressText.isIPv6(address) {
                return "hostAddresses: \(String(address.prefix(60)).debugDescription) for \(key) is not an IPv4 or IPv6 address"
            }
        }
        if let problem = Self.connectToProblem(connectTo) { return problem }
        if let delay = happyEyeballsDelay, delay < .zero {
            return "happyEyeballsDelay must be zero or positive, not \(delay)"
        }
        if let lifetime = dnsCacheLifetime, lifetime < .zero {
            return "dnsCacheLifetime must be zero or positive, not \(lifetime)"
        }
        if let idle = maximumConnectionIdleTime, idle <= .zero {
            return "maximumConnectionIdleTime must be positive, not \(idle); use nil for libcurl's default"
        }
        if let lifetime = maximumConnectionLifetime, lifetime <= .zero {
            return "maximumConnectionLifetime must be positive, not \(lifetime); use nil for no limit"
        }
        if let problem = outgoingInterface?.problem { return problem }
        if let ports = localPorts, ports.lowerBound < 1 || ports.upperBound > 65535 {
            return "localPorts \(ports) must lie within 1...65535"
        }
        if let problem = dnsOverHTTPS?.problem { return problem }
        return environmentProblem
    }

    /// Why a ``connectTo`` map cannot be given to libcurl, or nil.
    static func connectToProblem(_ map: [HostAndPort: HostAndPort]) -> String? {
        for (key, target) in map {
            if let problem = key.problemAsKey { return "connectTo: \(problem)" }
            if let problem = target.problemAsTarget { return "connectTo: \(problem)" }
        }
        return nil
    }

    /// Whether any control is on.
    var isDefault: Bool { self == NetworkControls() }

    /// The `CURLOPT_RESOLVE` lines, sorted: `host:port:address[,address]`.
    var resolveLines: [String] {
        hostAddresses.map { key, addresses in
            "\(key.host):\(key.port):" + addresses.map(HostAndPort.bracketed).joined(separator: ",")
        }.sorted()
    }

    /// The `CURLOPT_CONNECT_TO` lines of `map`, sorted: `host:port:host2:port2`.
    static func connectToLines(_ map: [HostAndPort: HostAndPort]) -> [String] {
        map.map { key, target in "\(key.host):\(key.port):\(HostAndPort.bracketed(target.host)):\(target.port)" }.sorted()
    }

    /// `duration` in whole seconds, rounded up.
    static func wholeSeconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(clamping: seconds + (attoseconds > 0 ? 1 : 0))
    }

    /// `duration` in whole milliseconds, rounded up.
    static func wholeMilliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let (ms, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return Int.max }
        return Int(clamping: ms + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }

    /// curl's options for these controls, with `connectTo` and `ipVersion` as given (a
    /// request's overrides, or the session's).
    static func curlArguments(
        _ controls: NetworkControls, connectTo: [HostAndPort: HostAndPort], ipVersion: IPVersionPreference
    ) -> (arguments: [String], unprintable: [String]) {
        var parts: [String] = []
        for line in controls.resolveLines { parts += ["--resolve", CURLCommand.quote(line)] }
        for line in connectToLines(connectTo) { parts += ["--connect-to", CURLCommand.quote(line)] }
        if let flag = ipVersion.curlFlag { parts.append(flag) }
        if let delay = controls.happyEyeballsDelay {
            parts += ["--happy-eyeballs-timeout-ms", String(wholeMilliseconds(delay))]
        }
        if let interface = controls.outgoingInterface { parts += ["--interface", CURLCommand.quote(interface.curlValue)] }
        if let ports = controls.localPorts {
            parts += ["--local-port", ports.count == 1 ? String(ports.lowerBound) : "\(ports.lowerBound)-\(ports.upperBound)"]
        }
        if let doh = controls.dnsOverHTTPS { parts += doh.curlArguments }
        // libcurl options the curl tool has no flag for.
        var unprintable: [String] = []
        if let lifetime = controls.dnsCacheLifetime { unprintable.append("CURLOPT_DNS_CACHE_TIMEOUT=\(wholeSeconds(lifetime))") }
        if let idle = controls.maximumConnectionIdleTime { unprintable.append("CURLOPT_MAXAGE_CONN=\(wholeSeconds(idle))") }
        if let lifetime = controls.maximumConnectionLifetime {
            unprintable.append("CURLOPT_MAXLIFETIME_CONN=\(wholeSeconds(lifetime))")
        }
        return (parts, unprintable)
    }
}
