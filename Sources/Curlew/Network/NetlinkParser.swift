import CCurlShims
import Glibc

/// A network interface as a `RTM_NEWLINK` or `RTM_DELLINK` message describes it.
struct NetlinkLink: Hashable, Sendable {
    var index: Int32
    var name: String
    /// `IFF_*` flags.
    var flags: UInt32
}

/// An interface address, from `RTM_NEWADDR` or `RTM_DELADDR`.
struct NetlinkAddress: Hashable, Sendable {
    var interfaceIndex: Int32
    /// `AF_INET` or `AF_INET6`.
    var family: UInt8
    var prefixLength: UInt8
    /// `RT_SCOPE_*`.
    var scope: UInt8
    /// `IFA_F_*` flags (the 32-bit `IFA_FLAGS` attribute when present).
    var flags: UInt32
    /// 4 or 16 bytes, in network order.
    var bytes: [UInt8]
}

/// A route, from `RTM_NEWROUTE` or `RTM_DELROUTE` (or the answer to a route query).
struct NetlinkRoute: Hashable, Sendable {
    var family: UInt8
    /// `RTA_TABLE` when present, else the message's 8-bit table.
    var table: UInt32
    /// `RTN_*`.
    var type: UInt8
    var destinationLength: UInt8
    var destination: [UInt8]
    var priority: UInt32
    var tos: UInt8
    /// `RTA_OIF`, or the interfaces of every next hop of a multipath route.
    var outputInterfaces: [Int32]
    var gateway: [UInt8]?
    /// Whether the route names a nexthop object (`RTA_NH_ID`) instead of interfaces.
    var usesNexthopObject: Bool
    /// Whether the message asked to replace the route with the same key (`NLM_F_REPLACE`).
    var replaces: Bool
}

/// What one netlink message says, as far as the reachability monitor cares.
enum NetlinkMessage: Hashable, Sendable {
    case link(NetlinkLink, removed: Bool)
    case address(NetlinkAddress, removed: Bool)
    case route(NetlinkRoute, removed: Bool)
    /// `NLMSG_DONE`: the end of a dump.
    case done
    /// `NLMSG_ERROR`: zero for an acknowledgement, else a negative errno.
    case error(code: Int32)
    /// `NLMSG_OVERRUN`: messages were lost.
    case overrun
    /// A type the monitor does not use, or a body too short or malformed to read: skipped.
    case skipped
}

/// One message with its header.
struct NetlinkEnvelope: Hashable, Sendable {
    var type: UInt16
    var flags: UInt16
    var sequence: UInt32
    /// The port the message is addressed to (ours for replies to our requests; for
    /// notifications, the port of whoever caused them, or 0).
    var port: UInt32
    var message: NetlinkMessage
}

/// Splits a netlink datagram into messages and reads the ones the monitor uses.
///
/// Everything is bounds-checked against the buffer: a message whose body is short or whose
/// attributes overrun it becomes ``NetlinkMessage/skipped``; a header whose length is smaller
/// than a header or runs past the datagram ends the walk (nothing after it can be located).
/// Values are in host byte order, as netlink sends them; addresses stay in network order.
enum NetlinkParser {
    static let headerSize = 16
    static let linkBodySize = 16
    static let addressBodySize = 8
    static let routeBodySize = 12
    static let attributeHeaderSize = 4
    static let nexthopSize = 8

    /// Every message of `datagram`, in order.
    static func parse(_ datagram: UnsafeRawBufferPointer) -> [NetlinkEnvelope] {
        let bytes = ByteView(datagram)
        var envelopes: [NetlinkEnvelope] = []
        var offset = 0
        while let length = bytes.u32(at: offset).map(Int.init), let type = bytes.u16(at: offset + 4),
            let flags = bytes.u16(at: offset + 6), let sequence = bytes.u32(at: offset + 8),
            let port = bytes.u32(at: offset + 12)
        {
            guard length >= headerSize, length <= bytes.count - offset else { break }
            let body = bytes.slice(offset + headerSize, offset + length)
            envelopes.append(NetlinkEnvelope(
                type: type, flags: flags, sequence: sequence, port: port,
                message: message(type: type, flags: flags, body: body)))
            offset += align(length)
        }
        return envelopes
    }

    /// Parses a datagram held in an array (tests, and callers that already copied it).
    static func parse(_ datagram: [UInt8]) -> [NetlinkEnvelope] {
        datagram.withUnsafeBytes { parse($0) }
    }

    static func align(_ length: Int) -> Int { (length + 3) & ~3 }

    private static func message(type: UInt16, flags: UInt16, body: ByteView) -> NetlinkMessage {
        switch type {
        case curlew_NLMSG_DONE: return .done
        case curlew_NLMSG_OVERRUN: return .overrun
        case curlew_NLMSG_ERROR: return body.i32(at: 0).map { .error(code: $0) } ?? .skipped
        case curlew_RTM_NEWLINK, curlew_RTM_DELLINK:
            return link(body).map { .link($0, removed: type == curlew_RTM_DELLINK) } ?? .skipped
        case curlew_RTM_NEWADDR, curlew_RTM_DELADDR:
            return address(body).map { .address($0, removed: type == curlew_RTM_DELADDR) } ?? .skipped
        case curlew_RTM_NEWROUTE, curlew_RTM_DELROUTE:
            return route(body, replaces: flags & curlew_NLM_F_REPLACE != 0)
                .map { .route($0, removed: type == curlew_RTM_DELROUTE) } ?? .skipped
        default: return .skipped
        }
    }

    private static func link(_ body: ByteView) -> NetlinkLink? {
        guard body.count >= linkBodySize, let index = body.i32(at: 4), let flags = body.u32(at: 8) else { return nil }
        var name: String?
        guard attributes(of: body.slice(linkBodySize, body.count), { type, value in
            if type == curlew_IFLA_IFNAME { name = value.cString() }
        }) else { return nil }
        return NetlinkLink(index: index, name: name ?? "if\(index)", flags: flags)
    }

    private static func address(_ body: ByteView) -> NetlinkAddress? {
        guard body.count >= addressBodySize, let family = body.u8(at: 0), let prefixLength = body.u8(at: 1),
            let shortFlags = body.u8(at: 2), let scope = body.u8(at: 3), let index = body.u32(at: 4)
        else { return nil }
        guard let size = addressSize(family: family) else { return nil }
        var local: [UInt8]?
        var peer: [UInt8]?
        var flags = UInt32(shortFlags)
        guard attributes(of: body.slice(addressBodySize, body.count), { type, value in
            switch type {
            case curlew_IFA_LOCAL: local = value.bytes()
            case curlew_IFA_ADDRESS: peer = value.bytes()
            case curlew_IFA_FLAGS: if let wide = value.u32(at: 0) { flags = wide }
            default: break
            }
        }) else { return nil }
        // On point-to-point links IFA_ADDRESS is the peer and IFA_LOCAL the interface's own.
        guard let bytes = local ?? peer, bytes.count == size else { return nil }
        return NetlinkAddress(
            interfaceIndex: Int32(bitPattern: index), family: family, prefixLength: prefixLength, scope: scope,
            flags: flags, bytes: bytes)
    }

    private static func route(_ body: ByteView, replaces: Bool) -> NetlinkRoute? {
        guard body.count >= routeBodySize, let family = body.u8(at: 0), let destinationLength = body.u8(at: 1),
            let tos = body.u8(at: 3), let shortTable = body.u8(at: 4), let type = body.u8(at: 7)
        else { return nil }
        guard let size = addressSize(family: family) else { return nil }
        var route = NetlinkRoute(
            family: family, table: UInt32(shortTable), type: type, destinationLength: destinationLength,
            destination: [], priority: 0, tos: tos, outputInterfaces: [], gateway: nil, usesNexthopObject: false,
            replaces: replaces)
        var valid = true
        guard attributes(of: body.slice(routeBodySize, body.count), { type, value in
            switch type {
            case curlew_RTA_TABLE: if let table = value.u32(at: 0) { route.table = table }
            case curlew_RTA_OIF: if let index = value.i32(at: 0) { route.outputInterfaces = [index] }
            case curlew_RTA_PRIORITY: if let priority = value.u32(at: 0) { route.priority = priority }
            case curlew_RTA_NH_ID: route.usesNexthopObject = true
            case curlew_RTA_DST:
                route.destination = value.bytes()
                if route.destination.count != size { valid = false }
            case curlew_RTA_GATEWAY:
                route.gateway = value.bytes()
                if route.gateway?.count != size { valid = false }
            case curlew_RTA_MULTIPATH:
                guard let hops = nexthops(value) else {
                    valid = false
                    return
                }
                route.outputInterfaces = hops
            default: break
            }
        }), valid else { return nil }
        guard Int(destinationLength) <= size * 8 else { return nil }
        return route
    }

    /// The interfaces of a `RTA_MULTIPATH` list of `struct rtnexthop`; nil when malformed.
    private static func nexthops(_ list: ByteView) -> [Int32]? {
        var interfaces: [Int32] = []
        var offset = 0
        while offset < list.count {
            guard let length = list.u16(at: offset).map(Int.init), length >= nexthopSize,
                length <= list.count - offset, let index = list.i32(at: offset + 4)
            else { return nil }
            interfaces.append(index)
            offset += align(length)
        }
        return interfaces
    }

    /// Calls `visit` with the type (under `NLA_TYPE_MASK`) and value of every attribute;
    /// false when an attribute's length is impossible.
    private static func attributes(of region: ByteView, _ visit: (UInt16, ByteView) -> Void) -> Bool {
        var offset = 0
        while offset < region.count {
            guard let length = region.u16(at: offset).map(Int.init), let type = region.u16(at: offset + 2),
                length >= attributeHeaderSize, length <= region.count - offset
            else { return false }
            visit(type & curlew_NLA_TYPE_MASK, region.slice(offset + attributeHeaderSize, offset + length))
            offset += align(length)
        }
        return true
    }

    private static func addressSize(family: UInt8) -> Int? {
        switch Int32(family) {
        case AF_INET: return 4
        case AF_INET6: return 16
        default: return nil
        }
    }
}

/// A bounds-checked, read-only window on raw bytes: every read outside it is nil.
struct ByteView {
    private let base: UnsafeRawBufferPointer
    private let start: Int
    let count: Int

    init(_ base: UnsafeRawBufferPointer) {
        self.base = base
        start = 0
        count = base.count
    }

    private init(base: UnsafeRawBufferPointer, start: Int, count: Int) {
        self.base = base
        self.start = start
        self.count = count
    }

    /// The bytes from `lower` up to `upper`, clamped to this view.
    func slice(_ lower: Int, _ upper: Int) -> ByteView {
        let low = min(max(0, lower), count)
        let high = min(max(low, upper), count)
        return ByteView(base: base, start: start + low, count: high - low)
    }

    private func load<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T? {
        guard offset >= 0, offset <= count - MemoryLayout<T>.size else { return nil }
        return base.loadUnaligned(fromByteOffset: start + offset, as: T.self)
    }

    func u8(at offset: Int) -> UInt8? { load(UInt8.self, at: offset) }
    func u16(at offset: Int) -> UInt16? { load(UInt16.self, at: offset) }
    func u32(at offset: Int) -> UInt32? { load(UInt32.self, at: offset) }
    func i32(at offset: Int) -> Int32? { load(Int32.self, at: offset) }

    func bytes() -> [UInt8] { Array(base[(start)..<(start + count)]) }

    /// The bytes up to the first NUL (or the end), as UTF-8 with invalid bytes replaced.
    func cString() -> String {
        let all = base[(start)..<(start + count)]
        let end = all.firstIndex(of: 0) ?? all.endIndex
        return String(decoding: all[all.startIndex..<end], as: UTF8.self)
    }
}
