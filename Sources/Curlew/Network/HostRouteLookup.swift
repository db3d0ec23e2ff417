import CCurlShims
import Foundation

/// Answers ``ReachabilityMonitor/reachability(of:)``: resolves the host, then asks the kernel
/// for its route to each address with one `RTM_GETROUTE` request, on a thread of its own
/// (resolution blocks).
enum HostRouteLookup {
    /// How long to wait for the kernel's answer to one route query.
    private static let answerTimeout = timeval(tv_sec: 2, tv_usec: 0)

    static func reachability(of host: String, namespacePath: String?, tables: NetworkTables) async -> HostReachability {
        do throws(CurlewError) {
            return try await NetworkNamespace.onThread(named: "Curlew.Route", in: namespacePath) { () throws(CurlewError) in
                lookUp(host, tables: tables)
            }
        } catch {
            return HostReachability(host: host, routes: [], resolutionFailure: error.message)
        }
    }

    private static func lookUp(_ host: String, tables: NetworkTables) -> HostReachability {
        let addresses: [[UInt8]]
        switch resolve(host) {
        case .addresses(let resolved): addresses = resolved
        case .failure(let reason): return HostReachability(host: host, routes: [], resolutionFailure: reason)
        }
        var port: UInt32 = 0
        let socket = curlew_netlink_open(0, &port)
        guard socket >= 0 else {
            let failure = NetlinkError.error("cannot open a NETLINK_ROUTE socket", code: socket)
            return HostReachability(host: host, routes: [], resolutionFailure: failure.message)
        }
        defer { close(socket) }
        var timeout = answerTimeout
        _ = setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var routes: [HostReachability.Route] = []
        for (index, address) in addresses.enumerated() {
            let text = NetworkInterface.Address.text(of: address) ?? "?"
            let route = query(socket: socket, port: port, address: address, sequence: UInt32(index + 1))
            guard let route, let interface = route.outputInterfaces.first,
                route.type == curlew_RTN_UNICAST || route.type == curlew_RTN_LOCAL
            else {
                routes.append(.init(address: text, interface: nil, gateway: nil, isReachable: false))
                continue
            }
            // An interface the monitor has not heard of yet is trusted to the kernel's word.
            let usable = tables.name(of: interface) == nil || tables.isUsable(interface: interface)
            routes.append(.init(
                address: text, interface: tables.name(of: interface) ?? "if\(interface)",
                gateway: route.gateway.flatMap(NetworkInterface.Address.text(of:)), isReachable: usable))
        }
        return HostReachability(host: host, routes: routes)
    }

    /// The kernel's route to `address`, or nil when it has none (or did not answer).
    private static func query(socket: Int32, port: UInt32, address: [UInt8], sequence: UInt32) -> NetlinkRoute? {
        let family = UInt8(address.count == 4 ? AF_INET : AF_INET6)
        let sent = address.withUnsafeBufferPointer {
            curlew_netlink_request_route(socket, family, $0.baseAddress, $0.count, sequence)
        }
        guard sent == 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 8192)
        // Read until the answer to this query: earlier queries' late answers are skipped.
        for _ in 0..<8 {
            var truncated: Int32 = 0
            let received = buffer.withUnsafeMutableBytes {
                curlew_netlink_receive(socket, $0.baseAddress, $0.count, &truncated)
            }
            guard received >= 0 else { return nil }
            let envelopes = buffer.withUnsafeBytes {
                NetlinkParser.parse(UnsafeRawBufferPointer(rebasing: $0[0..<received]))
            }
            for envelope in envelopes where envelope.sequence == sequence && envelope.port == port {
                if case .route(let route, removed: false) = envelope.message { return route }
                return nil
            }
        }
        return nil
    }

    private enum Resolution {
        case addresses([[UInt8]])
        case failure(String)
    }

    /// The host's addresses, in resolution order without duplicates; an IP literal is its own.
    private static func resolve(_ host: String) -> Resolution {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var v4 = in_addr()
        if inet_pton(AF_INET, bare, &v4) == 1 { return .addresses([withUnsafeBytes(of: &v4) { Array($0) }]) }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, bare, &v6) == 1 { return .addresses([withUnsafeBytes(of: &v6) { Array($0) }]) }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(bare, nil, &hints, &list)
        guard status == 0 else { return .failure(String(cString: gai_strerror(status))) }
        defer { freeaddrinfo(list) }
        var addresses: [[UInt8]] = []
        var entry = list
        while let current = entry?.pointee {
            entry = current.ai_next
            guard let address = current.ai_addr else { continue }
            let bytes: [UInt8]
            switch current.ai_family {
            case AF_INET:
                var sin = sockaddr_in()
                memcpy(&sin, address, min(Int(current.ai_addrlen), MemoryLayout<sockaddr_in>.size))
                bytes = withUnsafeBytes(of: &sin.sin_addr) { Array($0) }
            case AF_INET6:
                var sin6 = sockaddr_in6()
                memcpy(&sin6, address, min(Int(current.ai_addrlen), MemoryLayout<sockaddr_in6>.size))
                bytes = withUnsafeBytes(of: &sin6.sin6_addr) { Array($0) }
            default: continue
            }
            if !addresses.contains(bytes) { addresses.append(bytes) }
        }
        return addresses.isEmpty ? .failure("no addresses") : .addresses(addresses)
    }
}

/// Work on a thread of its own, optionally inside another network namespace (tests): a
/// namespace is a property of a thread, so the thread enters it before its first socket.
enum NetworkNamespace {
    /// Runs `body` on a new thread, first entering the network namespace at `path` (nil: the
    /// process's own), and returns its result without blocking the caller's thread.
    static func onThread<T: Sendable>(
        named name: String, in path: String?, _ body: @escaping @Sendable () throws(CurlewError) -> T
    ) async throws(CurlewError) -> T {
        let result: Result<T, CurlewError> = await withCheckedContinuation { continuation in
            let thread = Thread {
                curlew_name_current_thread(name)
                if let path {
                    let code = curlew_enter_network_namespace(path)
                    guard code == 0 else {
                        continuation.resume(
                            returning: .failure(NetlinkError.error("cannot enter the network namespace \(path)", code: code)))
                        return
                    }
                }
                continuation.resume(returning: Result { () throws(CurlewError) -> T in try body() })
            }
            thread.stackSize = 256 << 10
            thread.start()
        }
        return try result.get()
    }
}
