import CCurlShims
import Glibc
import Testing

@testable import Curlew

/// The rules that turn links, addresses and default routes into a ``NetworkPath``, on tables
/// fed with parsed messages (no network).
@Suite("Network path rules")
struct NetworkTablesTests {
    typealias B = NetlinkBytes

    static let v6Global: [UInt8] = [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [7]
    static let v6LinkLocal: [UInt8] = [0xfe, 0x80] + [UInt8](repeating: 0, count: 13) + [7]

    /// Tables after applying every message of `datagrams`.
    func tables(_ datagrams: [UInt8]...) -> NetworkTables {
        var tables = NetworkTables()
        for datagram in datagrams {
            for envelope in NetlinkParser.parse(datagram) { tables.apply(envelope.message) }
        }
        return tables
    }

    /// lo and eth0 (index 2) up with IPv4 addresses and an IPv4 default route through eth0.
    var online: NetworkTables {
        tables(
            B.link(index: 1, flags: B.loopback, name: "lo"), B.address(index: 1, bytes: [127, 0, 0, 1], prefix: 8, scope: curlew_RT_SCOPE_HOST),
            B.link(index: 2, flags: B.upRunning, name: "eth0"), B.address(index: 2, bytes: [192, 0, 2, 10], prefix: 24),
            B.route(outputInterface: 2, gateway: [192, 0, 2, 1]))
    }

    func applying(_ datagram: [UInt8], to tables: NetworkTables) -> (NetworkTables, NetworkTables.Change) {
        var tables = tables
        var change: NetworkTables.Change = []
        for envelope in NetlinkParser.parse(datagram) { change.formUnion(tables.apply(envelope.message)) }
        return (tables, change)
    }

    @Test func aDefaultRouteThroughARunningInterfaceWithAnAddressIsSatisfied() {
        let path = online.path()
        #expect(path.isSatisfied)
        #expect(path.hasIPv4DefaultRoute)
        #expect(!path.hasIPv6DefaultRoute)
        #expect(!path.isLoopbackOnly)
        #expect(path.interfaces.map(\.name) == ["lo", "eth0"])
        #expect(path.interface(named: "eth0")?.addresses == [.init(address: "192.0.2.10", prefixLength: 24, isIPv6: false)])
        #expect(path.interface(named: "lo")?.isLoopback == true)
    }

    @Test func withoutADefaultRouteThePathIsUnsatisfiedThoughTheInterfaceIsListed() {
        let (tables, _) = applying(B.route(outputInterface: 2, gateway: [192, 0, 2, 1], removed: true), to: online)
        let path = tables.path()
        #expect(!path.isSatisfied)
        #expect(!path.hasIPv4DefaultRoute)
        #expect(path.interface(named: "eth0") != nil)
        #expect(!path.isLoopbackOnly)
    }

    @Test func aDeletionWithoutTheNextHopRemovesTheRouteOfItsKey() {
        let (tables, _) = applying(B.route(removed: true), to: online)
        #expect(!tables.path().isSatisfied)
    }

    @Test func losingTheCarrierUnsatisfiesAndKeepsTheRoute() {
        let (carrierless, change) = applying(B.link(index: 2, flags: curlew_IFF_UP, name: "eth0"), to: online)
        #expect(change.isEmpty, "a carrier change needs no new dump")
        #expect(!carrierless.path().isSatisfied)
        #expect(carrierless.path().isLoopbackOnly)
        #expect(carrierless.path().interface(named: "eth0") == nil)
        let (back, _) = applying(B.link(index: 2, flags: B.upRunning, name: "eth0"), to: carrierless)
        #expect(back.path().isSatisfied)
    }

    @Test func takingALinkDownDropsTheRoutesThroughIt() {
        let (down, change) = applying(B.link(index: 2, flags: 0, name: "eth0"), to: online)
        #expect(change.contains(.administrativeState))
        #expect(!down.path().isSatisfied)
        let (up, upChange) = applying(B.link(index: 2, flags: B.upRunning, name: "eth0"), to: down)
        #expect(upChange.contains(.administrativeState))
        #expect(!up.path().isSatisfied, "the kernel does not restore the route, and neither may the tables")
        #expect(up.path().interface(named: "eth0") != nil)
    }

    @Test func aRemovedLinkTakesItsAddressesAndRoutes() {
        let (tables, _) = applying(B.link(index: 2, flags: 0, name: "eth0", removed: true), to: online)
        #expect(tables.path().interfaces.map(\.name) == ["lo"])
        #expect(!tables.path().isSatisfied)
        let (readded, _) = applying(
            B.link(index: 2, flags: B.upRunning, name: "eth0") + B.address(index: 2, bytes: [192, 0, 2, 10], prefix: 24),
            to: tables)
        #expect(!readded.path().isSatisfied, "its default route went with it")
    }

    @Test func onlyUnicastDefaultRoutesCount() {
        let base = tables(
            B.link(index: 2, flags: B.upRunning, name: "eth0"), B.address(index: 2, bytes: [192, 0, 2, 10], prefix: 24))
        for type: UInt8 in [2, 6, 7] {  // local, blackhole, unreachable
            let (tables, _) = applying(B.route(type: type, outputInterface: 2), to: base)
            #expect(!tables.path().isSatisfied, "route type \(type)")
        }
        let (local, _) = applying(B.route(table: curlew_RT_TABLE_LOCAL, outputInterface: 2), to: base)
        #expect(!local.path().isSatisfied, "the local table")
        let (main, _) = applying(B.route(outputInterface: 2), to: base)
        #expect(main.path().isSatisfied)
    }

    @Test func aDefaultRouteNeedsAnAddressOfItsFamilyOnItsInterface() {
        let base = tables(B.link(index: 2, flags: B.upRunning, name: "eth0"), B.route(family: AF_INET6, outputInterface: 2))
        #expect(!base.path().isSatisfied, "no address at all")
        let (linkLocal, _) = applying(
            B.address(index: 2, bytes: Self.v6LinkLocal, prefix: 64, scope: curlew_RT_SCOPE_LINK), to: base)
        #expect(!linkLocal.path().isSatisfied, "a link-local address reaches no further than its link")
        #expect(linkLocal.path().interface(named: "eth0") != nil, "but the interface is up with an address")
        let (tentative, _) = applying(
            B.address(index: 2, bytes: Self.v6Global, prefix: 64, flags: curlew_IFA_F_TENTATIVE), to: linkLocal)
        #expect(!tentative.path().isSatisfied, "a tentative address cannot be used yet")
        let (global, _) = applying(B.address(index: 2, bytes: Self.v6Global, prefix: 64, flags: 0), to: linkLocal)
        #expect(global.path().isSatisfied)
        #expect(global.path().hasIPv6DefaultRoute)
        #expect(!global.path().hasIPv4DefaultRoute)
        let (v4Only, _) = applying(B.address(index: 2, bytes: [192, 0, 2, 10], prefix: 24), to: base)
        #expect(!v4Only.path().isSatisfied, "an IPv4 address does not serve an IPv6 route")
    }

    @Test func aDefaultRouteThroughLoopbackOrAnotherInterfaceDoesNotCount() {
        let base = tables(
            B.link(index: 1, flags: B.loopback, name: "lo"), B.address(index: 1, bytes: [127, 0, 0, 1], prefix: 8, scope: curlew_RT_SCOPE_HOST),
            B.link(index: 2, flags: B.upRunning, name: "eth0"), B.address(index: 2, bytes: [192, 0, 2, 10], prefix: 24),
            B.link(index: 3, flags: curlew_IFF_UP, name: "wlan0"), B.address(index: 3, bytes: [198, 51, 100, 2], prefix: 24))
        let (throughLoopback, _) = applying(B.route(outputInterface: 1), to: base)
        #expect(!throughLoopback.path().isSatisfied)
        let (throughCarrierless, _) = applying(B.route(outputInterface: 3), to: base)
        #expect(!throughCarrierless.path().isSatisfied)
    }

    @Test func multipathAndNexthopObjectRoutes() {
        let base = tables(
            B.link(index: 2, flags: curlew_IFF_UP, name: "eth0"), B.address(index: 2, bytes: [192, 0, 2, 10], prefix: 24),
            B.link(index: 3, flags: B.upRunning, name: "eth1"), B.address(index: 3, bytes: [198, 51, 100, 2], prefix: 24))
        let multipath = B.message(
            type: curlew_RTM_NEWROUTE,
            body: B.routeBody(extra: B.attribute(curlew_RTA_MULTIPATH, B.nexthop(interface: 2) + B.nexthop(interface: 3))))
        #expect(applying(multipath, to: base).0.path().isSatisfied, "one usable next hop is enough")
        let object = B.message(type: curlew_RTM_NEWROUTE, body: B.routeBody(extra: B.attribute(curlew_RTA_NH_ID, B.native(UInt32(1)))))
        #expect(applying(object, to: base).0.path().isSatisfied)
    }

    @Test func replacingARouteMovesItToAnotherInterface() {
        let base = tables(
            B.link(index: 2, flags: B.upRunning, name: "eth0"), B.address(index: 2, bytes: [192, 0, 2, 10], prefix: 24),
            B.link(index: 3, flags: curlew_IFF_UP, name: "eth1"), B.address(index: 3, bytes: [198, 51, 100, 2], prefix: 24),
            B.route(outputInterface: 2))
        #expect(base.path().isSatisfied)
        let (replaced, _) = applying(B.route(outputInterface: 3, flags: curlew_NLM_F_REPLACE), to: base)
        #expect(!replaced.path().isSatisfied, "the route now leaves through the carrierless eth1")
        let (added, _) = applying(B.route(outputInterface: 3), to: base)
        #expect(added.path().isSatisfied, "without NLM_F_REPLACE both routes exist")
    }

    @Test func loopbackOnly() {
        let tables = tables(
            B.link(index: 1, flags: B.loopback, name: "lo"), B.address(index: 1, bytes: [127, 0, 0, 1], prefix: 8, scope: curlew_RT_SCOPE_HOST),
            B.link(index: 2, flags: 0, name: "eth0"))
        let path = tables.path()
        #expect(path.isLoopbackOnly)
        #expect(!path.isSatisfied)
        #expect(path.description.hasPrefix("unsatisfied (no usable default route; interfaces up with addresses: lo)"))
        #expect(!NetworkTables().path().isLoopbackOnly, "nothing at all is not loopback-only")
    }

    @Test func dumpsReplaceTheirPartOfTheTables() {
        var live = online
        let fresh = tables(B.link(index: 1, flags: B.loopback, name: "lo"))
        live.replaceRoutes(with: fresh)
        #expect(!live.path().isSatisfied)
        #expect(live.path().interface(named: "eth0") != nil, "links and addresses stay")
        live.replaceLinks(with: fresh)
        #expect(live.path().interface(named: "eth0") == nil)
    }
}
