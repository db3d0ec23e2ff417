import Foundation
import Glibc
import TestServer

@testable import Curlew

/// Two network namespaces made for one test — a client and a server side — joined by a veth
/// pair, and always removed afterwards (deleting a namespace deletes its end of the pair).
///
/// ```
///  client namespace                         server namespace
///  lo 127.0.0.1                             lo 127.0.0.1
///  veth-c 10.77.0.1/24, fd77::1/64  <---->  veth-s 10.77.0.2/24, fd77::2/64
///  default via 10.77.0.2 / fd77::2
/// ```
///
/// Names are unique per process and test, so tests run in parallel; the addresses are the
/// same in every pair, since each pair is a world of its own. Needs CAP_SYS_ADMIN and
/// CAP_NET_ADMIN (root) and iproute2's `ip`.
struct NetworkNamespacePair: Sendable {
    static let clientAddress = "10.77.0.1"
    static let serverAddress = "10.77.0.2"
    static let serverAddress6 = "fd77::2"
    static let clientInterface = "veth-c"
    static let serverInterface = "veth-s"

    /// The `ip` tool, where iproute2 installs it.
    static let ip = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Whether this process may make network namespaces: CAP_SYS_ADMIN (21) and CAP_NET_ADMIN
    /// (12) in its effective set. Only their absence skips the tests; a missing `ip` fails them.
    static let isPrivileged: Bool = {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("CapEff:") }),
            let mask = UInt64(line.dropFirst("CapEff:".count).trimmingCharacters(in: .whitespaces), radix: 16)
        else { return false }
        return mask & (1 << 21) != 0 && mask & (1 << 12) != 0
    }()

    let client: String
    let server: String

    /// The client namespace as a path a thread can enter.
    var clientPath: String { "/run/netns/\(client)" }
    /// The server namespace as a path a thread can enter.
    var serverPath: String { "/run/netns/\(server)" }

    /// Makes a pair, runs `body`, and removes the pair whether `body` succeeded or not.
    static func with<T: Sendable>(_ body: (NetworkNamespacePair) async throws -> T) async throws -> T {
        let unique = "cw\(getpid())-\(UUID().uuidString.prefix(8).lowercased())"
        let pair = NetworkNamespacePair(client: "\(unique)-c", server: "\(unique)-s")
        do {
            try await pair.setUp()
            let value = try await body(pair)
            await pair.tearDown()
            return value
        } catch {
            await pair.tearDown()
            throw error
        }
    }

    private func setUp() async throws {
        try await run("""
            ip netns add \(client)
            ip netns add \(server)
            ip link add \(Self.clientInterface) netns \(client) type veth peer name \(Self.serverInterface) netns \(server)
            ip -n \(client) link set lo up
            ip -n \(server) link set lo up
            ip -n \(client) addr add \(Self.clientAddress)/24 dev \(Self.clientInterface)
            ip -n \(server) addr add \(Self.serverAddress)/24 dev \(Self.serverInterface)
            ip -n \(client) -6 addr add fd77::1/64 dev \(Self.clientInterface) nodad
            ip -n \(server) -6 addr add \(Self.serverAddress6)/64 dev \(Self.serverInterface) nodad
            ip -n \(client) link set \(Self.clientInterface) up
            ip -n \(server) link set \(Self.serverInterface) up
            ip -n \(client) route add default via \(Self.serverAddress)
            ip -n \(client) -6 route add default via \(Self.serverAddress6)
            """)
    }

    private func tearDown() async {
        _ = try? await ChildProcess.run(
            "/bin/sh", ["-c", "\(Self.ip ?? "ip") netns del \(client); \(Self.ip ?? "ip") netns del \(server)"])
    }

    /// Runs `script` — one `ip …` command a line, `ip` replaced by its full path — stopping at
    /// the first failure, which it throws with the tool's message.
    func run(_ script: String) async throws {
        guard let ip = Self.ip else { throw TestServerError("iproute2's ip is not installed (apt-get install iproute2)") }
        let lines = script.split(separator: "\n").map { line -> String in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return trimmed.hasPrefix("ip ") ? ip + trimmed.dropFirst(2) : trimmed
        }
        let result = try await ChildProcess.run("/bin/sh", ["-c", "set -e\n" + lines.joined(separator: "\n")])
        guard result.status == 0 else {
            throw TestServerError("`\(lines.joined(separator: "; "))` failed (\(result.status)): \(result.errorText)")
        }
    }

    /// A test server listening on the server side at 10.77.0.2: its socket is made by a thread
    /// that entered the server namespace, then handed to the in-process server.
    func startServer() async throws -> TestServer {
        let path = serverPath
        let (socket, port) = try await NetworkNamespace.onThread(named: "test.listen", in: path) {
            () throws(CurlewError) -> (Int32, Int) in
            try Self.listen(on: Self.serverAddress)
        }
        return try await TestServer.start(listeningSocket: socket, host: Self.serverAddress, port: port)
    }

    /// A socket bound to `address` on a free port, listening.
    private static func listen(on address: String) throws(CurlewError) -> (Int32, Int) {
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw CurlewError(.transport, "socket() failed: errno \(errno)") }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(address)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        let named = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard bound == 0, named == 0, Glibc.listen(descriptor, 64) == 0 else {
            let code = errno
            close(descriptor)
            throw CurlewError(.transport, "cannot listen on \(address): errno \(code)")
        }
        return (descriptor, Int(UInt16(bigEndian: local.sin_port)))
    }
}

extension ReachabilityMonitor {
    /// The first path the monitor reports (the current one included) that satisfies
    /// `condition`; nil if none does within `limit` — a bound on failure, never what orders a test.
    func path(
        where condition: @escaping @Sendable (NetworkPath) -> Bool, within limit: Duration = .seconds(30)
    ) async -> NetworkPath? {
        let stream = paths()
        return await withTaskGroup(of: NetworkPath?.self) { group in
            group.addTask {
                for await path in stream where condition(path) { return path }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
