@testable import Curlew
import Foundation
import Testing
import TestServer

/// The session's ``NetworkControls`` and the per-request `connectTo` and `ipVersion`, against
/// the test server on loopback: each reaches where it says, shows in `cURLDescription()`, and a
/// request's own value never stays on the pooled handle for the next request.
@Suite("Network controls")
struct NetworkControlsTests {
    private func session(_ change: (inout NetworkControls) -> Void = { _ in }) -> Session {
        var configuration = SessionConfiguration()
        configuration.proxy = .direct
        change(&configuration.network)
        return Session(configuration: configuration)
    }

    /// The `Host` line the test server received.
    private func host(_ data: Data) throws -> String? {
        try Fixtures.echo(data).headerLines(named: "host").first
    }

    /// Runs a printed command through the shell; the test server's answer.
    private func runPrinted(_ command: String) async throws -> Data {
        let shell = try await ChildProcess.run("/bin/sh", ["-c", command + " --silent"])
        #expect(shell.status == 0, "\(shell.errorText) \(command)")
        return shell.output
    }

    @Test func hostAddressesReachTheAddressUnderTheRequestsOwnName() async throws {
        let server = try await Fixtures.server()
        let session = session { $0.hostAddresses[HostAndPort("api.test", port: server.port)] = ["127.0.0.1"] }
        defer { Task { await session.shutdown() } }
        let path = "/anything/resolve-\(UUID().uuidString)"
        let request = session.request("http://api.test:\(server.port)\(path)")
        #expect(try host(try await request.data()) == "api.test:\(server.port)")
        #expect(server.requestCount(path: path) == 1)
        let command = request.cURLDescription()
        #expect(command.contains("--resolve 'api.test:\(server.port):127.0.0.1'"), "\(command)")
        #expect(try host(try await runPrinted(command)) == "api.test:\(server.port)")
        #expect(server.requestCount(path: path) == 2)
    }

    @Test func anIPv6HostAddressIsBracketedForLibcurl() async throws {
        let server = try await Fixtures.server()  // Also on ::1 where the system has it.
        let session = session { $0.hostAddresses[HostAndPort("v6.test", port: server.port)] = ["::1"] }
        defer { Task { await session.shutdown() } }
        #expect(session.request("http://v6.test:\(server.port)/get").cURLDescription()
            .contains("--resolve 'v6.test:\(server.port):[::1]'"))
        let path = "/anything/resolve6-\(UUID().uuidString)"
        #expect(try host(try await session.request("http://v6.test:\(server.port)\(path)").data()) == "v6.test:\(server.port)")
        #expect(server.connectionPeers.contains { $0.address == "::1" })
    }

    @Test func connectToReachesTheTargetUnderTheRequestsOwnName() async throws {
        let server = try await Fixtures.server()
        let session = session { $0.connectTo[HostAndPort("api.test", port: 80)] = HostAndPort("127.0.0.1", port: server.port) }
        defer { Task { await session.shutdown() } }
        let path = "/anything/connect-to-\(UUID().uuidString)"
        let request = session.request("http://api.test\(path)")
        #expect(try host(try await request.data()) == "api.test")
        let command = request.cURLDescription()
        #expect(command.contains("--connect-to 'api.test:80:127.0.0.1:\(server.port)'"), "\(command)")
        #expect(try host(try await runPrinted(command)) == "api.test")
        #expect(server.requestCount(path: path) == 2)
    }

    /// One session, one pooled handle at a time: a request mapped to server B, then the same
    /// URL without the mapping, which must reach A (neither the handle's option nor B's pooled
    /// connection may carry it), and back.
    @Test func aRequestsOwnConnectToNeverStaysOnThePooledHandleOrItsConnection() async throws {
        let a = try await TestServer.start()
        let b = try await TestServer.start()
        let session = session()
        defer { Task { await session.shutdown(); try? await a.shutdown(); try? await b.shutdown() } }
        var mapped = RequestOptions()
        mapped.connectTo = [HostAndPort("127.0.0.1", port: a.port): HostAndPort("127.0.0.1", port: b.port)]
        let url = a.url("/anything/mapped")
        for round in 1...2 {
            _ = try await session.request(url, options: mapped).validate().data()
            #expect(b.requestCount(path: "/anything/mapped") == round, "round \(round)")
            _ = try await session.request(url).validate().data()
            #expect(a.requestCount(path: "/anything/mapped") == round, "round \(round): the mapping stayed")
        }
        #expect(session.request(url, options: mapped).cURLDescription().contains("--connect-to"))
        #expect(!session.request(url).cURLDescription().contains("--connect-to"))
        // An empty map turns the session's mapping off for one request.
        let mappedSession = self.session { $0.connectTo[HostAndPort("127.0.0.1", port: a.port)] = HostAndPort("127.0.0.1", port: b.port) }
        defer { Task { await mappedSession.shutdown() } }
        var unmapped = RequestOptions()
        unmapped.connectTo = [:]
        _ = try await mappedSession.request(a.url("/anything/unmapped"), options: unmapped).validate().data()
        #expect(a.requestCount(path: "/anything/unmapped") == 1)
        _ = try await mappedSession.request(a.url("/anything/unmapped")).validate().data()
        #expect(b.requestCount(path: "/anything/unmapped") == 1, "the session's mapping came back")
    }

    /// A server on 127.0.0.1 only: `localhost` over IPv6 finds nothing, over IPv4 finds it; a
    /// request's own preference never stays for the next request on the same session.
    @Test func ipVersionChoosesTheAddressFamily() async throws {
        let server = try await TestServer.start(alsoOnIPv6Loopback: false)
        let session = session()
        defer { Task { await session.shutdown(); try? await server.shutdown() } }
        let url = server.localhostURL("/anything/ip-version")
        var ipv6 = RequestOptions()
        ipv6.ipVersion = .ipv6Only
        var ipv4 = RequestOptions()
        ipv4.ipVersion = .ipv4Only
        for round in 1...2 {
            await #expect(throws: CurlewError.self, "round \(round)") { try await session.request(url, options: ipv6).data() }
            #expect(server.requestCount(path: "/anything/ip-version") == 2 * (round - 1))
            // Would fail if IPv6-only stayed on the pooled handle.
            _ = try await session.request(url).validate().data()
            _ = try await session.request(url, options: ipv4).validate().data()
            #expect(server.requestCount(path: "/anything/ip-version") == 2 * round)
        }
        #expect(session.request(url, options: ipv6).cURLDescription().contains(" -6 "))
        #expect(session.request(url, options: ipv4).cURLDescription().contains(" -4 "))
        let v6Session = self.session { $0.ipVersion = .ipv6Only }
        defer { Task { await v6Session.shutdown() } }
        await #expect(throws: CurlewError.self) { try await v6Session.request(url).data() }
        _ = try await v6Session.request(url, options: ipv4).validate().data()
        #expect(server.requestCount(path: "/anything/ip-version") == 5)
    }

    /// Connections of a fresh server counted: a connection idle past its limit (or older than
    /// its lifetime) is not reused; with libcurl's defaults it is. Sleeping makes the condition.
    @Test(arguments: ["default", "idle", "lifetime"])
    func connectionAgeLimitsCloseOldConnections(limit: String) async throws {
        let server = try await TestServer.start()
        let session = session {
            if limit == "idle" { $0.maximumConnectionIdleTime = .seconds(1) }
            if limit == "lifetime" { $0.maximumConnectionLifetime = .seconds(1) }
        }
        defer { Task { await session.shutdown(); try? await server.shutdown() } }
        _ = try await session.request(server.url("/get")).validate().data()
        try await Task.sleep(for: .milliseconds(2200))
        _ = try await session.request(server.url("/get")).validate().data()
        #expect(server.connectionCount == (limit == "default" ? 1 : 2))
        let command = session.request(server.url("/get")).cURLDescription()
        #expect(command.contains("CURLOPT_MAXAGE_CONN=1") == (limit == "idle"), "\(command)")
        #expect(command.contains("CURLOPT_MAXLIFETIME_CONN=1") == (limit == "lifetime"), "\(command)")
    }

    @Test func happyEyeballsAndDNSCacheAreSetAndPrinted() async throws {
        let server = try await Fixtures.server()
        let session = session {
            $0.happyEyeballsDelay = .milliseconds(50)
            $0.dnsCacheLifetime = .zero
        }
        defer { Task { await session.shutdown() } }
        let request = session.request(server.localhostURL("/get"))
        _ = try await request.validate().data()
        let command = request.cURLDescription()
        #expect(command.contains("--happy-eyeballs-timeout-ms 50"), "\(command)")
        #expect(command.hasSuffix("# libcurl only: CURLOPT_DNS_CACHE_TIMEOUT=0"), "\(command)")
    }

    /// The local end: a range of ports below the system's ephemeral ones, and 127.0.0.2 as the
    /// source address; the test server records both.
    @Test func connectionsLeaveFromTheGivenAddressAndPorts() async throws {
        let server = try await TestServer.start()
        let first = Int.random(in: 20000..<30000)
        let ports = first...(first + 49)
        let session = session {
            $0.outgoingInterface = .host("127.0.0.2")
            $0.localPorts = ports
        }
        defer { Task { await session.shutdown(); try? await server.shutdown() } }
        let request = session.request(server.url("/get"))
        _ = try await request.validate().data()
        let peer = try #require(server.connectionPeers.last)
        #expect(ports.contains(peer.port), "\(peer)")
        #expect(peer.address == "127.0.0.2")
        let command = request.cURLDescription()
        #expect(command.contains("--interface 'host!127.0.0.2' --local-port \(first)-\(first + 49)"), "\(command)")
    }

    @Test func anInterfaceByNameBindsToTheDevice() async throws {
        let server = try await TestServer.start()
        let session = session { $0.outgoingInterface = .interface("lo") }
        defer { Task { await session.shutdown(); try? await server.shutdown() } }
        _ = try await session.request(server.url("/get")).validate().data()
        let missing = self.session { $0.outgoingInterface = .interface("curlewnone0") }
        defer { Task { await missing.shutdown() } }
        await #expect(throws: CurlewError.self) { try await missing.request(server.url("/get")).data() }
        #expect(server.requestCount(path: "/get") == 1)
    }

    /// Each bad value fails with `invalidRequest` before any connection.
    @Test func badValuesAreRefusedBeforeAnyConnection() async throws {
        let server = try await TestServer.start()
        defer { Task { try? await server.shutdown() } }
        let port = server.port
        let target = HostAndPort("127.0.0.1", port: port)
        let bad: [(String, (inout NetworkControls) -> Void)] = [
            ("colon in host", { $0.hostAddresses[HostAndPort("a:b", port: port)] = ["127.0.0.1"] }),
            ("CRLF in host", { $0.hostAddresses[HostAndPort("a\r\nb", port: port)] = ["127.0.0.1"] }),
            ("comma in host", { $0.hostAddresses[HostAndPort("a,b", port: port)] = ["127.0.0.1"] }),
            ("empty host", { $0.hostAddresses[HostAndPort("", port: port)] = ["127.0.0.1"] }),
            ("port 0", { $0.hostAddresses[HostAndPort("a.test", port: 0)] = ["127.0.0.1"] }),
            ("port 65536", { $0.hostAddresses[HostAndPort("a.test", port: 65536)] = ["127.0.0.1"] }),
            ("no address", { $0.hostAddresses[HostAndPort("a.test", port: port)] = [] }),
            ("not an address", { $0.hostAddresses[HostAndPort("a.test", port: port)] = ["localhost"] }),
            ("short address", { $0.hostAddresses[HostAndPort("a.test", port: port)] = ["127.0.1"] }),
            ("two in one", { $0.hostAddresses[HostAndPort("a.test", port: port)] = ["127.0.0.1,10.0.0.1"] }),
            ("bracketed", { $0.hostAddresses[HostAndPort("a.test", port: port)] = ["[::1]"] }),
            ("connect-to key", { $0.connectTo[HostAndPort("a b", port: port)] = target }),
            ("connect-to target", { $0.connectTo[HostAndPort("a.test", port: port)] = HostAndPort("b,c", port: port) }),
            ("connect-to port", { $0.connectTo[HostAndPort("a.test", port: port)] = HostAndPort("b", port: -1) }),
            ("happy eyeballs", { $0.happyEyeballsDelay = .milliseconds(-1) }),
            ("DNS cache", { $0.dnsCacheLifetime = .seconds(-1) }),
            ("idle zero", { $0.maximumConnectionIdleTime = .zero }),
            ("lifetime", { $0.maximumConnectionLifetime = .seconds(-5) }),
            ("empty interface", { $0.outgoingInterface = .name("") }),
            ("space in interface", { $0.outgoingInterface = .host("127.0.0.1 x") }),
            ("long interface", { $0.outgoingInterface = .interface("abcdefghijklmnop") }),
            ("port range low", { $0.localPorts = 0...10 }),
            ("port range high", { $0.localPorts = 65000...65536 }),
        ]
        for (name, change) in bad {
            let session = session(change)
            do {
                _ = try await session.request(server.url("/get")).data()
                Issue.record("\(name): accepted")
            } catch {
                #expect(error.kind == .invalidRequest, "\(name): \(error)")
            }
            await session.shutdown()
        }
        let session = session()
        defer { Task { await session.shutdown() } }
        var options = RequestOptions()
        options.connectTo = [HostAndPort("a\nb", port: port): target]
        await #expect(throws: CurlewError.self) { try await session.request(server.url("/get"), options: options).data() }
        #expect(server.connectionCount == 0)
    }

    @Test func everyControlOffPrintsNothingNew() {
        let plain = Session(configuration: SessionConfiguration())
        defer { Task { await plain.shutdown() } }
        let command = plain.request("http://127.0.0.1:1/get").cURLDescription()
        for flag in ["--resolve", "--connect-to", " -4", " -6", "--happy", "--interface", "--local-port", "# libcurl"] {
            #expect(!command.contains(flag), "\(command)")
        }
        #expect(NetworkControls().isDefault)
    }

    @Test func linesAreSortedAndBracketed() {
        var controls = NetworkControls()
        controls.hostAddresses = [
            HostAndPort("b.test", port: 443): ["::1", "127.0.0.1"], HostAndPort("a.test", port: 80): ["10.0.0.1"],
        ]
        #expect(controls.resolveLines == ["a.test:80:10.0.0.1", "b.test:443:[::1],127.0.0.1"])
        #expect(NetworkControls.connectToLines([HostAndPort("a.test", port: 443): HostAndPort("::1", port: 8443)])
            == ["a.test:443:[::1]:8443"])
        #expect(NetworkControls.wholeSeconds(.milliseconds(1500)) == 2)
        #expect(NetworkControls.wholeMilliseconds(.microseconds(1500)) == 2)
        #expect(controls.problem == nil)
    }
}
