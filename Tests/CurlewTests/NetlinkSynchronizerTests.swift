import CCurlShims
import Glibc
import Testing

@testable import Curlew

/// The dump-then-events protocol of the monitor, fed with byte buffers (no socket).
@Suite("Netlink synchronization")
struct NetlinkSynchronizerTests {
    typealias B = NetlinkBytes
    static let port: UInt32 = 777

    /// A dump reply: addressed to our port with the dump's sequence number.
    func reply(_ body: [UInt8], type: UInt16, sequence: UInt32, flags: UInt16 = curlew_NLM_F_MULTI) -> [UInt8] {
        B.message(type: type, flags: flags, sequence: sequence, port: Self.port, body: body)
    }

    func done(_ sequence: UInt32, flags: UInt16 = curlew_NLM_F_MULTI) -> [UInt8] {
        reply(B.native(Int32(0)), type: curlew_NLMSG_DONE, sequence: sequence, flags: flags)
    }

    func feed(_ synchronizer: inout NetlinkSynchronizer, _ datagram: [UInt8]) -> [NetlinkSynchronizer.Action] {
        synchronizer.receive(NetlinkParser.parse(datagram))
    }

    /// A synchronizer through its first dumps of lo + eth0 with an IPv4 default route.
    func ready() -> NetlinkSynchronizer {
        var synchronizer = NetlinkSynchronizer(port: Self.port)
        _ = synchronizer.start()
        _ = feed(&synchronizer,
            reply(B.linkBody(index: 1, flags: B.loopback, name: "lo"), type: curlew_RTM_NEWLINK, sequence: 1)
            + reply(B.linkBody(index: 2, flags: B.upRunning, name: "eth0"), type: curlew_RTM_NEWLINK, sequence: 1)
            + done(1))
        _ = feed(&synchronizer,
            reply(B.addressBody(index: 2, bytes: [192, 0, 2, 10], prefix: 24), type: curlew_RTM_NEWADDR, sequence: 2)
            + done(2))
        _ = feed(&synchronizer,
            reply(B.routeBody(outputInterface: 2, gateway: [192, 0, 2, 1]), type: curlew_RTM_NEWROUTE, sequence: 3)
            + done(3))
        return synchronizer
    }

    @Test func theFirstDumpsRunOneAfterAnotherThenItIsReady() {
        var synchronizer = NetlinkSynchronizer(port: Self.port)
        #expect(synchronizer.start() == [.requestDump(.links, sequence: 1)])
        #expect(feed(&synchronizer, reply(B.linkBody(index: 2, flags: B.upRunning, name: "eth0"), type: curlew_RTM_NEWLINK, sequence: 1)).isEmpty)
        #expect(feed(&synchronizer, done(1)) == [.requestDump(.addresses, sequence: 2)])
        #expect(feed(&synchronizer,
            reply(B.addressBody(index: 2, bytes: [192, 0, 2, 10], prefix: 24), type: curlew_RTM_NEWADDR, sequence: 2) + done(2))
            == [.requestDump(.routes, sequence: 3)])
        #expect(!synchronizer.isReady)
        #expect(feed(&synchronizer,
            reply(B.routeBody(outputInterface: 2), type: curlew_RTM_NEWROUTE, sequence: 3) + done(3)) == [.ready])
        #expect(synchronizer.isReady)
        #expect(synchronizer.tables.path().isSatisfied)
    }

    @Test func aRefusedFirstDumpFailsAndALaterOneIsSkipped() {
        var synchronizer = NetlinkSynchronizer(port: Self.port)
        _ = synchronizer.start()
        #expect(feed(&synchronizer, reply(B.native(Int32(-1)) + [UInt8](repeating: 0, count: 16), type: curlew_NLMSG_ERROR, sequence: 1))
            == [.fail(.links, code: -1)])

        var running = ready()
        #expect(running.lostMessages() == [.requestDump(.links, sequence: 4)])
        #expect(feed(&running, reply(B.native(Int32(-16)) + [UInt8](repeating: 0, count: 16), type: curlew_NLMSG_ERROR, sequence: 4))
            == [.requestDump(.addresses, sequence: 5)])
        #expect(running.tables.path().isSatisfied, "the tables stay as they were")
    }

    @Test func eventsBeforeAndAfterReadiness() {
        var synchronizer = ready()
        #expect(feed(&synchronizer, B.route(outputInterface: 2, gateway: [192, 0, 2, 1], removed: true)).isEmpty)
        #expect(!synchronizer.tables.path().isSatisfied)
        #expect(feed(&synchronizer, B.route(outputInterface: 2)).isEmpty)
        #expect(synchronizer.tables.path().isSatisfied)
    }

    @Test func aReplyForAnotherPortIsAnEventNotPartOfOurDump() {
        // `ip route add` run with the same sequence number: its notification must not end,
        // or be collected into, our dump.
        var synchronizer = NetlinkSynchronizer(port: Self.port)
        _ = synchronizer.start()
        let foreign = B.message(type: curlew_NLMSG_DONE, sequence: 1, port: 4242, body: B.native(Int32(0)))
        #expect(feed(&synchronizer, foreign).isEmpty, "someone else's DONE does not end our dump")
        #expect(feed(&synchronizer, done(1)) == [.requestDump(.addresses, sequence: 2)])
    }

    @Test func anInterruptedDumpIsRepeatedAndItsPartialResultDropped() {
        var synchronizer = ready()
        #expect(synchronizer.lostMessages() == [.requestDump(.links, sequence: 4)])
        let interrupted = reply(B.linkBody(index: 1, flags: B.loopback, name: "lo"), type: curlew_RTM_NEWLINK, sequence: 4,
            flags: curlew_NLM_F_MULTI | curlew_NLM_F_DUMP_INTR) + done(4)
        #expect(feed(&synchronizer, interrupted) == [.requestDump(.links, sequence: 5)])
        #expect(synchronizer.tables.path().interface(named: "eth0") != nil, "the interrupted dump (lo only) was not applied")
        #expect(feed(&synchronizer,
            reply(B.linkBody(index: 1, flags: B.loopback, name: "lo"), type: curlew_RTM_NEWLINK, sequence: 5) + done(5))
            == [.requestDump(.addresses, sequence: 6)])
        #expect(synchronizer.tables.path().interface(named: "eth0") == nil, "the complete dump replaced the links")
    }

    @Test func goingAdministrativelyDownOrUpRereadsAddressesAndRoutes() {
        var synchronizer = ready()
        #expect(feed(&synchronizer, B.link(index: 2, flags: curlew_IFF_UP, name: "eth0")).isEmpty, "a carrier change: no dump")
        #expect(feed(&synchronizer, B.link(index: 2, flags: 0, name: "eth0")) == [.requestDump(.addresses, sequence: 4)])
        #expect(feed(&synchronizer, done(4)) == [.requestDump(.routes, sequence: 5)])
        // Taken down again while the routes are being read: that dump repeats.
        #expect(feed(&synchronizer, B.link(index: 2, flags: B.upRunning, name: "eth0")) == [])
        #expect(feed(&synchronizer, done(5)) == [.requestDump(.routes, sequence: 6)])
        #expect(feed(&synchronizer, done(6)) == [.requestDump(.addresses, sequence: 7)])
        #expect(feed(&synchronizer, done(7)).isEmpty)
    }

    @Test func anEventDuringADumpAppliesToWhatTheDumpCollected() {
        var synchronizer = ready()
        _ = synchronizer.lostMessages()
        _ = feed(&synchronizer,
            reply(B.linkBody(index: 2, flags: B.upRunning, name: "eth0"), type: curlew_RTM_NEWLINK, sequence: 4) + done(4))
        _ = feed(&synchronizer, done(5))  // addresses: none, as the dump said
        #expect(!synchronizer.tables.path().isSatisfied)
        _ = feed(&synchronizer, B.address(index: 2, bytes: [192, 0, 2, 10], prefix: 24))
        // The routes dump delivers the default route, then the route is deleted before it ends.
        _ = feed(&synchronizer, reply(B.routeBody(outputInterface: 2), type: curlew_RTM_NEWROUTE, sequence: 6))
        _ = feed(&synchronizer, B.route(outputInterface: 2, removed: true))
        _ = feed(&synchronizer, done(6))
        #expect(!synchronizer.tables.path().hasIPv4DefaultRoute, "the deletion was not undone by the dump")
        #expect(synchronizer.tables.path().interface(named: "eth0") != nil)
    }

    @Test func anOverrunMessageRereadsEverything() {
        var synchronizer = ready()
        #expect(feed(&synchronizer, B.message(type: curlew_NLMSG_OVERRUN, body: [])) == [.requestDump(.links, sequence: 4)])
        #expect(feed(&synchronizer, done(4)) == [.requestDump(.addresses, sequence: 5)])
        #expect(feed(&synchronizer, done(5)) == [.requestDump(.routes, sequence: 6)])
    }
}
