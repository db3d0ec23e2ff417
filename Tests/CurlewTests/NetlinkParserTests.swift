import CCurlShims
import Glibc
import Testing

@testable import Curlew

@Suite("Netlink message parsing, on byte buffers", .timeLimit(.minutes(1)))
struct NetlinkParserTests {
    typealias B = NetlinkBytes

    @Test func theParsersOffsetsMatchTheKernelsStructures() {
        #expect(curlew_sizeof_nlmsghdr == NetlinkParser.headerSize)
        #expect(curlew_sizeof_ifinfomsg == NetlinkParser.linkBodySize)
        #expect(curlew_sizeof_ifaddrmsg == NetlinkParser.addressBodySize)
        #expect(curlew_sizeof_rtmsg == NetlinkParser.routeBodySize)
        #expect(curlew_sizeof_rtattr == NetlinkParser.attributeHeaderSize)
        #expect(curlew_sizeof_rtnexthop == NetlinkParser.nexthopSize)
        #expect(curlew_sizeof_nlmsgerr == NetlinkParser.headerSize + 4)
    }

    @Test func aDatagramOfALinkAnAddressAndARoute() throws {
        let datagram = B.link(index: 2, flags: B.upRunning, name: "eth0")
            + B.address(index: 2, bytes: [192, 0, 2, 10], prefix: 24)
            + B.route(outputInterface: 2, gateway: [192, 0, 2, 1], priority: 100)
        let envelopes = NetlinkParser.parse(datagram)
        #expect(envelopes.map(\.type) == [curlew_RTM_NEWLINK, curlew_RTM_NEWADDR, curlew_RTM_NEWROUTE])
        #expect(envelopes[0].message == .link(NetlinkLink(index: 2, name: "eth0", flags: B.upRunning), removed: false))
        #expect(envelopes[1].message == .address(
            NetlinkAddress(
                interfaceIndex: 2, family: UInt8(AF_INET), prefixLength: 24, scope: 0, flags: 0, bytes: [192, 0, 2, 10]),
            removed: false))
        guard case .route(let route, removed: false) = envelopes[2].message else {
            Issue.record("not a route: \(envelopes[2].message)")
            return
        }
        #expect(route.family == UInt8(AF_INET))
        #expect(route.table == 254)
        #expect(route.destinationLength == 0)
        #expect(route.outputInterfaces == [2])
        #expect(route.gateway == [192, 0, 2, 1])
        #expect(route.priority == 100)
        #expect(route.type == curlew_RTN_UNICAST)
    }

    @Test func headerFieldsAndDeletions() {
        let datagram = B.message(
            type: curlew_RTM_DELLINK, flags: curlew_NLM_F_MULTI, sequence: 7, port: 4242,
            body: B.linkBody(index: 3, flags: 0, name: "wlan0"))
        let envelope = NetlinkParser.parse(datagram).first
        #expect(envelope?.sequence == 7)
        #expect(envelope?.port == 4242)
        #expect(envelope?.flags == curlew_NLM_F_MULTI)
        #expect(envelope?.message == .link(NetlinkLink(index: 3, name: "wlan0", flags: 0), removed: true))
    }

    @Test func doneErrorAndOverrun() {
        let datagram = B.message(type: curlew_NLMSG_DONE, body: B.native(Int32(0)))
            + B.message(type: curlew_NLMSG_ERROR, body: B.native(Int32(-101)) + [UInt8](repeating: 0, count: 16))
            + B.message(type: curlew_NLMSG_OVERRUN, body: [])
            + B.message(type: curlew_NLMSG_ERROR, body: [1, 2])
        #expect(NetlinkParser.parse(datagram).map(\.message) == [.done, .error(code: -101), .overrun, .skipped])
    }

    @Test func aMultipathRouteNamesEveryNexthopsInterface() {
        let hops = B.nexthop(interface: 2, gateway: [10, 0, 0, 1]) + B.nexthop(interface: 5)
        let body = B.routeBody(extra: B.attribute(curlew_RTA_MULTIPATH, hops))
        guard case .route(let route, _) = NetlinkParser.parse(B.message(type: curlew_RTM_NEWROUTE, body: body)).first?.message
        else {
            Issue.record("the route was not parsed")
            return
        }
        #expect(route.outputInterfaces == [2, 5])
    }

    @Test func aNexthopObjectAndTheWideTableAndTheReplaceFlag() {
        let body = B.routeBody(extra: B.attribute(curlew_RTA_NH_ID, B.native(UInt32(9))) + B.attribute(curlew_RTA_TABLE, B.native(UInt32(1000))))
        let datagram = B.message(type: curlew_RTM_NEWROUTE, flags: curlew_NLM_F_REPLACE, body: body)
        guard case .route(let route, _) = NetlinkParser.parse(datagram).first?.message else {
            Issue.record("the route was not parsed")
            return
        }
        #expect(route.usesNexthopObject)
        #expect(route.outputInterfaces.isEmpty)
        #expect(route.table == 1000)
        #expect(route.replaces)
    }

    @Test func attributeTypesAreReadUnderTheTypeMask() {
        // NLA_F_NESTED (0x8000) set on the name attribute must not hide it.
        var body: [UInt8] = [0, 0] + B.native(UInt16(1)) + B.native(Int32(4)) + B.native(B.upRunning) + B.native(UInt32(0))
        body += B.attribute(curlew_IFLA_IFNAME | 0x8000, Array("br0".utf8) + [0])
        #expect(NetlinkParser.parse(B.message(type: curlew_RTM_NEWLINK, body: body)).first?.message
            == .link(NetlinkLink(index: 4, name: "br0", flags: B.upRunning), removed: false))
    }

    @Test func aLinkWithoutANameIsNamedByItsIndex() {
        #expect(NetlinkParser.parse(B.link(index: 12, flags: 0, name: nil)).first?.message
            == .link(NetlinkLink(index: 12, name: "if12", flags: 0), removed: false))
    }

    // MARK: Malformed input: skipped, never a crash

    @Test func aShortBodyIsSkippedAndTheNextMessageStillRead() {
        let datagram = B.message(type: curlew_RTM_NEWLINK, body: [0, 0, 1, 0, 2, 0, 0, 0])
            + B.message(type: curlew_RTM_NEWADDR, body: [2, 24, 0])
            + B.message(type: curlew_RTM_NEWROUTE, body: [2, 0, 0, 0, 254])
            + B.link(index: 2, flags: 0, name: "eth0")
        #expect(NetlinkParser.parse(datagram).map(\.message) == [
            .skipped, .skipped, .skipped, .link(NetlinkLink(index: 2, name: "eth0", flags: 0), removed: false),
        ])
    }

    @Test func anAttributeRunningPastItsMessageSkipsTheMessage() {
        var body = B.linkBody(index: 2, flags: 0, name: nil)
        body += B.native(UInt16(200)) + B.native(curlew_IFLA_IFNAME) + Array("eth0".utf8)
        let shortAttribute = B.linkBody(index: 3, flags: 0, name: nil) + B.native(UInt16(2)) + B.native(curlew_IFLA_IFNAME)
        let datagram = B.message(type: curlew_RTM_NEWLINK, body: body)
            + B.message(type: curlew_RTM_NEWLINK, body: shortAttribute)
            + B.link(index: 4, flags: 0, name: "ok")
        #expect(NetlinkParser.parse(datagram).map(\.message) == [
            .skipped, .skipped, .link(NetlinkLink(index: 4, name: "ok", flags: 0), removed: false),
        ])
    }

    @Test func anAddressOfTheWrongSizeForItsFamilyIsSkipped() {
        let wrong = B.message(
            type: curlew_RTM_NEWADDR,
            body: [UInt8(AF_INET), 24, 0, 0] + B.native(UInt32(2)) + B.attribute(curlew_IFA_ADDRESS, [10, 0, 0]))
        let unknownFamily = B.message(
            type: curlew_RTM_NEWADDR,
            body: [UInt8(AF_PACKET), 0, 0, 0] + B.native(UInt32(2)) + B.attribute(curlew_IFA_ADDRESS, [1, 2, 3, 4]))
        let badGateway = B.message(type: curlew_RTM_NEWROUTE, body: B.routeBody(gateway: [1, 2, 3, 4, 5, 6]))
        let badMultipath = B.message(
            type: curlew_RTM_NEWROUTE, body: B.routeBody(extra: B.attribute(curlew_RTA_MULTIPATH, B.native(UInt16(40)) + [0, 0, 1, 0, 0, 0])))
        let tooLongPrefix = B.message(type: curlew_RTM_NEWROUTE, body: B.routeBody(destinationLength: 33))
        #expect(NetlinkParser.parse(wrong + unknownFamily + badGateway + badMultipath + tooLongPrefix).map(\.message)
            == [.skipped, .skipped, .skipped, .skipped, .skipped])
    }

    @Test func impossibleHeaderLengthsEndTheWalk() {
        let good = B.link(index: 1, flags: 0, name: "lo")
        let parsedGood: [NetlinkMessage] = [.link(NetlinkLink(index: 1, name: "lo", flags: 0), removed: false)]
        // Zero and too short (the walk could not advance), and past the end.
        let zero = B.message(type: curlew_RTM_NEWLINK, body: [], length: 0)
        let short = B.message(type: curlew_RTM_NEWLINK, body: [], length: 15)
        let long = B.message(type: curlew_RTM_NEWLINK, body: [0, 0, 0, 0], length: 4000)
        let huge = B.message(type: curlew_RTM_NEWLINK, body: [], length: .max)
        for tail in [zero, short, long, huge] {
            #expect(NetlinkParser.parse(good + tail + good).map(\.message) == parsedGood)
        }
        #expect(NetlinkParser.parse(good + good.prefix(10)).map(\.message) == parsedGood, "a partial header")
        #expect(NetlinkParser.parse([]).isEmpty)
    }

    @Test func randomDamageNeverCrashesTheParser() {
        var random = SplitMix(seed: 0x5eed)
        let valid = B.link(index: 2, flags: B.upRunning, name: "eth0")
            + B.address(index: 2, bytes: [192, 0, 2, 10], prefix: 24)
            + B.address(index: 2, bytes: [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [1], prefix: 64)
            + B.message(
                type: curlew_RTM_NEWROUTE,
                body: B.routeBody(outputInterface: 2, extra: B.attribute(curlew_RTA_MULTIPATH, B.nexthop(interface: 2))))
            + B.message(type: curlew_NLMSG_DONE, body: [0, 0, 0, 0])
        var parsed = 0
        for round in 0..<5000 {
            var damaged = valid
            for _ in 0..<(1 + Int(random.next() % 6)) {
                let position = Int(random.next() % UInt64(damaged.count))
                damaged[position] = UInt8(truncatingIfNeeded: random.next())
            }
            if round % 3 == 0 { damaged = Array(damaged.prefix(Int(random.next() % UInt64(damaged.count + 1)))) }
            let envelopes = NetlinkParser.parse(damaged)
            #expect(envelopes.count <= damaged.count / NetlinkParser.headerSize)
            parsed += envelopes.count
        }
        #expect(parsed > 0)
        let noise = (0..<4096).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        _ = NetlinkParser.parse(noise)
    }
}

/// A small seeded generator, so that a failing damage pattern repeats.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
