/// Whether one host can be reached, from ``ReachabilityMonitor/reachability(of:)``.
public struct HostReachability: Sendable, Hashable, CustomStringConvertible {
    /// The route to one of the host's addresses.
    public struct Route: Sendable, Hashable {
        /// The address, in its usual text form.
        public var address: String
        /// The interface the kernel would send through; nil when it has no route.
        public var interface: String?
        /// The next hop, when the address is not on an attached subnet.
        public var gateway: String?
        /// Whether the route exists and its interface is up and running.
        public var isReachable: Bool

        /// Creates a route.
        public init(address: String, interface: String?, gateway: String?, isReachable: Bool) {
            self.address = address
            self.interface = interface
            self.gateway = gateway
            self.isReachable = isReachable
        }
    }

    /// The host as asked.
    public var host: String
    /// One route per address the host resolved to, in resolution order.
    public var routes: [Route]
    /// Why the host could not be resolved, if it could not.
    public var resolutionFailure: String?

    /// Creates an answer.
    public init(host: String, routes: [Route], resolutionFailure: String? = nil) {
        self.host = host
        self.routes = routes
        self.resolutionFailure = resolutionFailure
    }

    /// Whether any address of the host is reachable.
    public var isReachable: Bool { routes.contains(where: \.isReachable) }

    /// `example.com: 192.0.2.7 via eth0 (gateway 10.0.0.1); 2001:db8::7 no route`.
    public var description: String {
        if let resolutionFailure { return "\(host): not resolved (\(resolutionFailure))" }
        let parts = routes.map { route -> String in
            guard let interface = route.interface else { return "\(route.address) no route" }
            var text = "\(route.address) via \(interface)"
            if let gateway = route.gateway { text += " (gateway \(gateway))" }
            if !route.isReachable { text += " (interface down)" }
            return text
        }
        return "\(host): \(parts.joined(separator: "; "))"
    }
}
