import Foundation
import Testing
import TestServer

@testable import Curlew

/// The reachability monitor, waiting for connectivity and the offline retrier against a real
/// kernel: each test makes its own pair of network namespaces (``NetworkNamespacePair``) and
/// changes links and routes with iproute2, then awaits what the monitor reports.
@Suite(
    "Reachability in network namespaces",
    .enabled(if: NetworkNamespacePair.isPrivileged, "making network namespaces needs CAP_SYS_ADMIN and CAP_NET_ADMIN (run as root)"),
    .timeLimit(.minutes(2)))
struct ReachabilityNamespaceTests {
    private static let client = NetworkNamespacePair.clientInterface

    /// Runs `body` with a monitor of the pair's client namespace, shut down afterwards.
    private func withMonitor<T: Sendable>(
        _ pair: NetworkNamespacePair, _ body: (ReachabilityMonitor) async throws -> T
    ) async throws -> T {
        let monitor = try await ReachabilityMonitor(networkNamespacePath: pair.clientPath)
        do {
            let value = try await body(monitor)
            await monitor.shutdown()
            return value
        } catch {
            await monitor.shutdown()
            throw error
        }
    }

    @Test func theFirstDumpShowsTheInterfacesAddressesAndDefaultRoutes() async throws {
        try await NetworkNamespacePair.with { pair in
            try await withMonitor(pair) { monitor in
                let path = monitor.currentPath
                #expect(path.isSatisfied)
                #expect(path.hasIPv4DefaultRoute)
                #expect(path.hasIPv6DefaultRoute)
                #expect(!path.isLoopbackOnly)
                #expect(path.interfaces.map(\.name) == ["lo", Self.client])
                let veth = try #require(path.interface(named: Self.client))
                #expect(!veth.isLoopback)
                #expect(veth.addresses.contains(.init(address: "10.77.0.1", prefixLength: 24, isIPv6: false)))
                #expect(veth.addresses.contains(.init(address: "fd77::1", prefixLength: 64, isIPv6: true)))
                #expect(veth.addresses.first?.isIPv6 == false, "IPv4 first")
                #expect(path.interface(named: "lo")?.addresses.first?.address == "127.0.0.1")
            }
        }
    }

    @Test func aLinkLosingItsCarrierAndGettingItBack() async throws {
        try await NetworkNamespacePair.with { pair in
            try await withMonitor(pair) { monitor in
                #expect(monitor.currentPath.isSatisfied)
                // The far end goes down: the client's interface stays up but loses its carrier.
                try await pair.run("ip -n \(pair.server) link set \(NetworkNamespacePair.serverInterface) down")
                let down = try #require(await monitor.path { !$0.isSatisfied })
                #expect(down.interface(named: Self.client) == nil, "an interface without carrier is not listed")
                #expect(down.isLoopbackOnly)
                #expect(!down.hasIPv4DefaultRoute && !down.hasIPv6DefaultRoute)
                try await pair.run("ip -n \(pair.server) link set \(NetworkNamespacePair.serverInterface) up")
                let up = try #require(await monitor.path { $0.isSatisfied })
                #expect(up.interface(named: Self.client) != nil)
                #expect(up.hasIPv4DefaultRoute, "the routes outlive a carrier loss")
            }
        }
    }

    @Test func takingTheLinkDownAndUpLosesItsDefaultRoutesUntilOneIsAdded() async throws {
        try await NetworkNamespacePair.with { pair in
            try await withMonitor(pair) { monitor in
                try await pair.run("ip -n \(pair.client) link set \(Self.client) down")
                _ = try #require(await monitor.path { !$0.isSatisfied })
                try await pair.run("ip -n \(pair.client) link set \(Self.client) up")
                // The kernel dropped the routes through the interface when it went down and
                // does not bring them back (nor say so): up again, it is still not satisfied.
                let back = try #require(await monitor.path { $0.interface(named: Self.client) != nil })
                #expect(!back.isSatisfied)
                #expect(!back.hasIPv4DefaultRoute)
                try await pair.run("ip -n \(pair.client) route add default via \(NetworkNamespacePair.serverAddress)")
                let satisfied = try #require(await monitor.path { $0.isSatisfied })
                #expect(satisfied.hasIPv4DefaultRoute)
            }
        }
    }

    @Test func defaultRoutesRemovedAndAdded() async throws {
        try await NetworkNamespacePair.with { pair in
            try await withMonitor(pair) { monitor in
                try await pair.run("ip -n \(pair.client) route del default")
                let v6Only = try #require(await monitor.path { !$0.hasIPv4DefaultRoute })
                #expect(v6Only.isSatisfied, "the IPv6 default route still leads out")
                #expect(v6Only.hasIPv6DefaultRoute)
                try await pair.run("ip -n \(pair.client) -6 route del default")
                let none = try #require(await monitor.path { !$0.isSatisfied })
                #expect(!none.hasIPv6DefaultRoute)
                #expect(none.interface(named: Self.client) != nil, "the interface is still up with its addresses")
                #expect(!none.isLoopbackOnly)
                try await pair.run("ip -n \(pair.client) route add default via \(NetworkNamespacePair.serverAddress)")
                let again = try #require(await monitor.path { $0.isSatisfied })
                #expect(again.hasIPv4DefaultRoute)
                #expect(!again.hasIPv6DefaultRoute)
            }
        }
    }

    @Test func hostReachabilityFollowsTheKernelsRoutes() async throws {
        try await NetworkNamespacePair.with { pair in
            try await withMonitor(pair) { monitor in
                let neighbour = await monitor.reachability(of: NetworkNamespacePair.serverAddress)
                #expect(neighbour.isReachable)
                #expect(neighbour.routes == [.init(address: "10.77.0.2", interface: Self.client, gateway: nil, isReachable: true)])
                let far = await monitor.reachability(of: "192.0.2.1")
                #expect(far.routes == [.init(address: "192.0.2.1", interface: Self.client, gateway: "10.77.0.2", isReachable: true)])
                let v6 = await monitor.reachability(of: "[fd77::2]")
                #expect(v6.routes.first?.interface == Self.client)
                let local = await monitor.reachability(of: "localhost")
                #expect(local.isReachable, "\(local)")
                #expect(local.routes.allSatisfy { $0.interface == "lo" }, "\(local)")

                try await pair.run("""
                    ip -n \(pair.client) route del default
                    ip -n \(pair.client) -6 route del default
                    """)
                _ = try #require(await monitor.path { !$0.isSatisfied })
                let unrouted = await monitor.reachability(of: "192.0.2.1")
                #expect(!unrouted.isReachable)
                #expect(unrouted.routes == [.init(address: "192.0.2.1", interface: nil, gateway: nil, isReachable: false)])
                #expect(await monitor.reachability(of: NetworkNamespacePair.serverAddress).isReachable, "the subnet is attached")

                try await pair.run("ip -n \(pair.server) link set \(NetworkNamespacePair.serverInterface) down")
                _ = try #require(await monitor.path { $0.interface(named: Self.client) == nil })
                let carrierless = await monitor.reachability(of: NetworkNamespacePair.serverAddress)
                #expect(!carrierless.isReachable, "\(carrierless)")
            }
        }
    }

    @Test func aRequestWaitingForConnectivityStartsWhenTheLinkReturns() async throws {
        try await NetworkNamespacePair.with { pair in
            let server = try await pair.startServer()
            do {
                try await withMonitor(pair) { monitor in
                    try await pair.run("ip -n \(pair.server) link set \(NetworkNamespacePair.serverInterface) down")
                    _ = try #require(await monitor.path { !$0.isSatisfied })
                    let recorder = ConnectivityRecorder()
                    var configuration = SessionConfiguration()
                    configuration.proxy = .direct  // 10.77.0.2 is no loopback host: an exported proxy would apply
                    configuration.reachabilityMonitor = monitor
                    configuration.eventMonitors = [recorder]
                    let session = Session(configuration: configuration, interceptors: [], networkNamespacePath: pair.clientPath)
                    var options = RequestOptions()
                    options.waitsForConnectivity = .seconds(60)
                    let request = session.request(server.url("/get"), options: options)
                    let response = Task { try await request.validate().serialized(by: .data) }
                    let waitedOn = try #require(await first(of: recorder.waits), "the request never waited")
                    #expect(!waitedOn.isSatisfied)
                    #expect(server.requestCount(path: "/get") == 0)
                    try await pair.run("ip -n \(pair.server) link set \(NetworkNamespacePair.serverInterface) up")
                    let result = try await response.value
                    #expect(result.head.status.code == 200)
                    #expect(result.attempts == 1)
                    #expect(server.requestCount(path: "/get") == 1)
                    await session.shutdown()
                }
                try await server.shutdown()
            } catch {
                try await server.shutdown()
                throw error
            }
        }
    }

    @Test func theOfflineRetrierRetriesOnceTheLinkReturns() async throws {
        try await NetworkNamespacePair.with { pair in
            let server = try await pair.startServer()
            do {
                try await withMonitor(pair) { monitor in
                    // Down: the routes through the interface go, so connecting fails at once.
                    try await pair.run("ip -n \(pair.client) link set \(Self.client) down")
                    _ = try #require(await monitor.path { !$0.isSatisfied })
                    let recorder = ConnectivityRecorder()
                    var configuration = SessionConfiguration()
                    configuration.proxy = .direct
                    configuration.eventMonitors = [recorder]
                    let retrier = OfflineRetrier(monitor: monitor, maximumWait: .seconds(60))
                    let session = Session(
                        configuration: configuration, interceptors: [retrier], networkNamespacePath: pair.clientPath)
                    let response = Task { try await session.request(server.url("/get")).validate().serialized(by: .data) }
                    #expect(await waiters(on: monitor, atLeast: 1), "the retrier never waited")
                    #expect(server.requestCount(path: "/get") == 0)
                    try await pair.run("""
                        ip -n \(pair.client) link set \(Self.client) up
                        ip -n \(pair.client) route add default via \(NetworkNamespacePair.serverAddress)
                        """)
                    let result = try await response.value
                    #expect(result.head.status.code == 200)
                    #expect(result.attempts == 2)
                    #expect(recorder.retryCount == 1)
                    #expect(server.requestCount(path: "/get") == 1)
                    await session.shutdown()
                }
                try await server.shutdown()
            } catch {
                try await server.shutdown()
                throw error
            }
        }
    }
}
