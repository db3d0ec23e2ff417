/// How a session trusts servers: a default ``TrustPolicy`` and policies for host patterns.
///
/// ```swift
/// var configuration = SessionConfiguration()
/// configuration.trust = TrustConfiguration(hosts: [
///     .exact("api.example.com"): .publicKeys(["sha256//r8udi/Mxd6pLO7y7hkx+rqq8EAl3eqsM8Kf0L2bFbtk="]),
///     .wildcard("*.internal.example"): .certificateAuthorities([.file("/etc/corp/ca.pem")]),
///     .exact("127.0.0.1"): .fingerprints([.sha256("AB:CD:…")], validateChain: false),
/// ])
/// ```
///
/// For a request, the most specific matching pattern wins (see ``HostPattern``); hosts that
/// match none get ``defaultPolicy``. Each redirect hop is matched on its own host. A
/// configuration that cannot be used (an unreadable file, a malformed pin or fingerprint, a
/// PEM without a certificate) fails every request of the session with
/// ``CurlewError/Kind/invalidRequest`` naming the problem; it never falls back to less checking.
public struct TrustConfiguration: Sendable {
    /// The policy for hosts that no pattern matches.
    public var defaultPolicy: TrustPolicy
    /// Policies for host patterns.
    public var hosts: [HostPattern: TrustPolicy]

    /// A default policy (system trust unless given) and policies for host patterns.
    public init(default defaultPolicy: TrustPolicy = .systemTrust, hosts: [HostPattern: TrustPolicy] = [:]) {
        self.defaultPolicy = defaultPolicy
        self.hosts = hosts
    }

    /// System trust for every host.
    public static let `default` = TrustConfiguration()

    /// The policy for `host` and the pattern that chose it (nil for the default).
    func policy(forHost host: String) -> (policy: TrustPolicy, pattern: HostPattern?) {
        let name = HostPattern.normalized(host)
        var best: (policy: TrustPolicy, pattern: HostPattern?, rank: Int) = (defaultPolicy, nil, -1)
        for (pattern, policy) in hosts {
            guard let rank = pattern.specificity(matching: name) else { continue }
            // Ties (two patterns of one rank cannot both match, except equal ones) keep the
            // first in a stable order, so the choice never depends on dictionary order.
            if rank > best.rank || (rank == best.rank && pattern.text < (best.pattern?.text ?? "")) {
                best = (policy, pattern, rank)
            }
        }
        return (best.policy, best.pattern)
    }
}
