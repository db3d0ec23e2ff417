import CCurlShims
import Glibc

/// The links, addresses and default routes the monitor knows, kept up to date from netlink
/// messages, and the ``NetworkPath`` they amount to. A plain value, tested without a network.
struct NetworkTables: Sendable, Equatable {
    private struct AddressKey: Hashable {
        var interfaceIndex: Int32
        var family: UInt8
        var prefixLength: UInt8
        var bytes: [UInt8]
    }

    /// Routes with the same key replace each other (`ip route replace`); the kernel's own
    /// key is this plus, for IPv6, the next hop.
    private struct RouteKey: Hashable {
        var family: UInt8
        var table: UInt32
        var priority: UInt32
        var tos: UInt8
    }

    private(set) var links: [Int32: NetlinkLink] = [:]
    private var addresses: [AddressKey: NetlinkAddress] = [:]
    /// Default routes (destination length 0) outside the local table, of any type.
    private(set) var defaultRoutes: Set<NetlinkRoute> = []

    /// What applying a message changed.
    struct Change: OptionSet {
        let rawValue: Int
        /// Some link went administratively up or down: the kernel may have dropped routes
        /// through it without saying so, so the monitor reads addresses and routes again.
        static let administrativeState = Change(rawValue: 1)
    }

    /// Applies one message: an event, or one entry of a dump.
    @discardableResult
    mutating func apply(_ message: NetlinkMessage) -> Change {
        switch message {
        case .link(let link, let removed):
            return apply(link, removed: removed)
        case .address(let address, let removed):
            let key = AddressKey(
                interfaceIndex: address.interfaceIndex, family: address.family, prefixLength: address.prefixLength,
                bytes: address.bytes)
            addresses[key] = removed ? nil : address
            return []
        case .route(let route, let removed):
            guard route.destinationLength == 0, route.table != UInt32(curlew_RT_TABLE_LOCAL) else { return [] }
            apply(route, removed: removed)
            return []
        case .done, .error, .overrun, .skipped:
            return []
        }
    }

    private mutating func apply(_ link: NetlinkLink, removed: Bool) -> Change {
        let previous = links[link.index]
        guard !removed else {
            links[link.index] = nil
            addresses = addresses.filter { $0.key.interfaceIndex != link.index }
            dropRoutes(leavingOnlyThrough: link.index)
            return previous == nil ? [] : .administrativeState
        }
        links[link.index] = link
        let up = curlew_IFF_UP
        guard let previous, previous.flags & up != link.flags & up else { return [] }
        if link.flags & up == 0 {
            // An interface taken down loses its routes in the kernel, without RTM_DELROUTE.
            dropRoutes(leavingOnlyThrough: link.index)
        }
        return .administrativeState
    }

    private mutating func dropRoutes(leavingOnlyThrough index: Int32) {
        defaultRoutes = defaultRoutes.filter { route in
            route.outputInterfaces.isEmpty || !route.outputInterfaces.allSatisfy { $0 == index }
        }
    }

    private mutating func apply(_ route: NetlinkRoute, removed: Bool) {
        let key = RouteKey(family: route.family, table: route.table, priority: route.priority, tos: route.tos)
        var stored = route
        stored.replaces = false
        if removed {
            if defaultRoutes.remove(stored) == nil {
                // A deletion that does not name the next hop removes the first route of its key, as the kernel does.
                if let match = defaultRoutes.first(where: { self.key(of: $0) == key }) { defaultRoutes.remove(match) }
            }
            return
        }
        if route.replaces { defaultRoutes = defaultRoutes.filter { self.key(of: $0) != key } }
        defaultRoutes.insert(stored)
    }

    private func key(of route: NetlinkRoute) -> RouteKey {
        RouteKey(family: route.family, table: route.table, priority: route.priority, tos: route.tos)
    }

    // MARK: Dumps

    /// Replaces every link with a dump's.
    mutating func replaceLinks(with other: NetworkTables) { links = other.links }

    /// Replaces every address with a dump's.
    mutating func replaceAddresses(with other: NetworkTables) { addresses = other.addresses }

    /// Replaces every default route with a dump's.
    mutating func replaceRoutes(with other: NetworkTables) { defaultRoutes = other.defaultRoutes }

    // MARK: The path

    private func isRunning(_ link: NetlinkLink) -> Bool {
        link.flags & curlew_IFF_UP != 0 && link.flags & curlew_IFF_RUNNING != 0
    }

    private func isLoopback(_ link: NetlinkLink) -> Bool { link.flags & curlew_IFF_LOOPBACK != 0 }

    /// Whether `address` can carry traffic beyond its link: IPv4 that is not loopback, or IPv6
    /// of global or site scope that finished duplicate address detection.
    private func reachesBeyondLink(_ address: NetlinkAddress) -> Bool {
        guard address.scope == curlew_RT_SCOPE_UNIVERSE || address.scope == curlew_RT_SCOPE_SITE else { return false }
        if Int32(address.family) == AF_INET6 {
            return address.flags & (curlew_IFA_F_TENTATIVE | curlew_IFA_F_DADFAILED) == 0
        }
        return true
    }

    /// The interfaces a default route of `family` may leave through.
    private func usableInterfaces(family: UInt8) -> Set<Int32> {
        var usable = Set<Int32>()
        for address in addresses.values where address.family == family && reachesBeyondLink(address) {
            guard let link = links[address.interfaceIndex], isRunning(link), !isLoopback(link) else { continue }
            usable.insert(link.index)
        }
        return usable
    }

    private func hasUsableDefaultRoute(family: Int32) -> Bool {
        let usable = usableInterfaces(family: UInt8(family))
        guard !usable.isEmpty else { return false }
        return defaultRoutes.contains { route in
            guard Int32(route.family) == family, route.type == curlew_RTN_UNICAST else { return false }
            // A route through a nexthop object does not name its interface here.
            if route.outputInterfaces.isEmpty { return route.usesNexthopObject }
            return route.outputInterfaces.contains { usable.contains($0) }
        }
    }

    /// Whether interface `index` is known, up and running (loopback included).
    func isUsable(interface index: Int32) -> Bool {
        links[index].map(isRunning) ?? false
    }

    /// The name of interface `index`, when known.
    func name(of index: Int32) -> String? { links[index]?.name }

    /// The path these tables amount to.
    func path() -> NetworkPath {
        var interfaces: [NetworkInterface] = []
        let byInterface = Dictionary(grouping: addresses.values, by: \.interfaceIndex)
        for link in links.values.sorted(by: { $0.index < $1.index }) where isRunning(link) {
            guard let own = byInterface[link.index], !own.isEmpty else { continue }
            let sorted = own.sorted { a, b in
                a.family != b.family ? a.family < b.family : a.bytes.lexicographicallyPrecedes(b.bytes)
            }
            let listed = sorted.compactMap { address in
                NetworkInterface.Address.text(of: address.bytes).map {
                    NetworkInterface.Address(
                        address: $0, prefixLength: Int(address.prefixLength), isIPv6: Int32(address.family) == AF_INET6)
                }
            }
            interfaces.append(
                NetworkInterface(index: Int(link.index), name: link.name, isLoopback: isLoopback(link), addresses: listed))
        }
        let v4 = hasUsableDefaultRoute(family: AF_INET)
        let v6 = hasUsableDefaultRoute(family: AF_INET6)
        return NetworkPath(
            status: v4 || v6 ? .satisfied : .unsatisfied, interfaces: interfaces, hasIPv4DefaultRoute: v4,
            hasIPv6DefaultRoute: v6)
    }
}
