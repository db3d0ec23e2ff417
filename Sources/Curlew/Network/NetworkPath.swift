/// What the network looks like from this machine (or network namespace) at one moment, as
/// ``ReachabilityMonitor`` reports it.
///
/// The path is **satisfied** when a default route (IPv4 or IPv6) leads out through an
/// interface that is usable for it: not loopback, administratively up and running (it has a
/// carrier), with an address of the route's family that can reach beyond the link (IPv4, or
/// global-scope IPv6 that is not tentative). Without a default route the path is unsatisfied
/// even when some interface has an address: hosts on an attached subnet may still be
/// reachable, which ``ReachabilityMonitor/reachability(of:)`` answers per host.
public struct NetworkPath: Sendable, Hashable, CustomStringConvertible {
    /// Whether connections can be expected to leave the machine.
    public enum Status: Sendable, Hashable {
        /// A usable default route exists.
        case satisfied
        /// No usable default route: the machine is offline, or reaches only attached subnets.
        case unsatisfied
    }

    /// Satisfied or not; see the type's description.
    public var status: Status
    /// The interfaces that are up and running with at least one address, loopback included,
    /// ordered by index.
    public var interfaces: [NetworkInterface]
    /// Whether an IPv4 default route leads out through a usable interface.
    public var hasIPv4DefaultRoute: Bool
    /// Whether an IPv6 default route leads out through a usable interface.
    public var hasIPv6DefaultRoute: Bool

    /// Creates a path; ``ReachabilityMonitor`` makes them, this is for tests of code that takes one.
    public init(
        status: Status, interfaces: [NetworkInterface], hasIPv4DefaultRoute: Bool, hasIPv6DefaultRoute: Bool
    ) {
        self.status = status
        self.interfaces = interfaces
        self.hasIPv4DefaultRoute = hasIPv4DefaultRoute
        self.hasIPv6DefaultRoute = hasIPv6DefaultRoute
    }

    /// Whether ``status`` is ``Status/satisfied``.
    public var isSatisfied: Bool { status == .satisfied }

    /// Whether loopback is the only interface that is up with an address: connections to this
    /// machine itself work, nothing else does.
    public var isLoopbackOnly: Bool {
        interfaces.contains(where: \.isLoopback) && !interfaces.contains { !$0.isLoopback }
    }

    /// The interface named `name`, if it is among ``interfaces``.
    public func interface(named name: String) -> NetworkInterface? {
        interfaces.first { $0.name == name }
    }

    /// For logs and error messages: `satisfied (IPv4 default route; interfaces up with addresses: lo, eth0)`.
    public var description: String {
        var routes: [String] = []
        if hasIPv4DefaultRoute { routes.append("IPv4") }
        if hasIPv6DefaultRoute { routes.append("IPv6") }
        let names = interfaces.map(\.name).joined(separator: ", ")
        let routeText = routes.isEmpty ? "no usable default route" : "\(routes.joined(separator: " and ")) default route"
        let state = status == .satisfied ? "satisfied" : "unsatisfied"
        return "\(state) (\(routeText); interfaces up with addresses: \(names.isEmpty ? "none" : names))"
    }
}
