import CCurlShims
import Glibc

@testable import Curlew

/// Builds netlink datagrams byte by byte (host byte order, as the kernel sends them), for
/// parser and table tests that need no network.
enum NetlinkBytes {
    static func native<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value) { Array($0) }
    }

    static func padded(_ bytes: [UInt8]) -> [UInt8] {
        bytes + [UInt8](repeating: 0, count: NetlinkParser.align(bytes.count) - bytes.count)
    }

    /// One message: a 16-byte header, then `body`, padded to 4 bytes. `length` overrides the
    /// header's length field (to make malformed messages).
    static func message(
        type: UInt16, flags: UInt16 = 0, sequence: UInt32 = 0, port: UInt32 = 0, body: [UInt8], length: UInt32? = nil
    ) -> [UInt8] {
        let header = native(length ?? UInt32(16 + body.count)) + native(type) + native(flags) + native(sequence)
            + native(port)
        return padded(header + body)
    }

    /// One attribute; `length` overrides its length field.
    static func attribute(_ type: UInt16, _ value: [UInt8], length: UInt16? = nil) -> [UInt8] {
        padded(native(length ?? UInt16(4 + value.count)) + native(type) + value)
    }

    static func linkBody(index: Int32, flags: UInt32, name: String?) -> [UInt8] {
        var body: [UInt8] = [0, 0] + native(UInt16(1)) + native(index) + native(flags) + native(UInt32(0))
        if let name { body += attribute(curlew_IFLA_IFNAME, Array(name.utf8) + [0]) }
        return body
    }

    static func link(index: Int32, flags: UInt32, name: String?, removed: Bool = false) -> [UInt8] {
        message(type: removed ? curlew_RTM_DELLINK : curlew_RTM_NEWLINK, body: linkBody(index: index, flags: flags, name: name))
    }

    static func addressBody(
        index: Int32, bytes: [UInt8], prefix: UInt8, scope: UInt8 = curlew_RT_SCOPE_UNIVERSE, flags: UInt32? = nil
    ) -> [UInt8] {
        let family = UInt8(bytes.count == 4 ? AF_INET : AF_INET6)
        var body: [UInt8] = [family, prefix, 0, scope] + native(UInt32(bitPattern: index))
        body += attribute(curlew_IFA_ADDRESS, bytes)
        if family == UInt8(AF_INET) { body += attribute(curlew_IFA_LOCAL, bytes) }
        if let flags { body += attribute(curlew_IFA_FLAGS, native(flags)) }
        return body
    }

    static func address(
        index: Int32, bytes: [UInt8], prefix: UInt8, scope: UInt8 = curlew_RT_SCOPE_UNIVERSE, flags: UInt32? = nil,
        removed: Bool = false
    ) -> [UInt8] {
        message(
            type: removed ? curlew_RTM_DELADDR : curlew_RTM_NEWADDR,
            body: addressBody(index: index, bytes: bytes, prefix: prefix, scope: scope, flags: flags))
    }

    static func routeBody(
        family: Int32 = AF_INET, table: UInt8 = 254, type: UInt8 = curlew_RTN_UNICAST, destination: [UInt8]? = nil,
        destinationLength: UInt8 = 0, outputInterface: Int32? = nil, gateway: [UInt8]? = nil, priority: UInt32? = nil,
        extra: [UInt8] = []
    ) -> [UInt8] {
        var body: [UInt8] = [UInt8(family), destinationLength, 0, 0, table, 3, 0, type] + native(UInt32(0))
        if let destination { body += attribute(curlew_RTA_DST, destination) }
        if let outputInterface { body += attribute(curlew_RTA_OIF, native(outputInterface)) }
        if let gateway { body += attribute(curlew_RTA_GATEWAY, gateway) }
        if let priority { body += attribute(curlew_RTA_PRIORITY, native(priority)) }
        return body + extra
    }

    static func route(
        family: Int32 = AF_INET, table: UInt8 = 254, type: UInt8 = curlew_RTN_UNICAST, outputInterface: Int32? = nil,
        gateway: [UInt8]? = nil, priority: UInt32? = nil, removed: Bool = false, flags: UInt16 = 0
    ) -> [UInt8] {
        message(
            type: removed ? curlew_RTM_DELROUTE : curlew_RTM_NEWROUTE, flags: flags,
            body: routeBody(
                family: family, table: table, type: type, outputInterface: outputInterface, gateway: gateway,
                priority: priority))
    }

    /// A `struct rtnexthop` with its attributes.
    static func nexthop(interface: Int32, gateway: [UInt8]? = nil) -> [UInt8] {
        let attributes = gateway.map { attribute(curlew_RTA_GATEWAY, $0) } ?? []
        return native(UInt16(8 + attributes.count)) + [0, 0] + native(interface) + attributes
    }

    static let upRunning = curlew_IFF_UP | curlew_IFF_RUNNING | curlew_IFF_LOWER_UP
    static let loopback = upRunning | curlew_IFF_LOOPBACK
}
