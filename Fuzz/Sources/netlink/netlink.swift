// Fuzz target `netlink`: NetlinkParser, NetworkTables and NetlinkSynchronizer (the
// reachability monitor's reading of NETLINK_ROUTE datagrams).
//
// Input: one datagram as the kernel would send it (host byte order).
//
// Properties:
// - Parsing never crashes, reads nothing outside the buffer (AddressSanitizer), and yields at
//   most one message per 16 bytes.
// - What parses is well formed: addresses are 4 bytes for AF_INET and 16 for AF_INET6, a
//   gateway has its family's size, a destination length fits its family.
// - Splitting the datagram at each message boundary and parsing the pieces one by one gives the
//   same messages (no message depends on bytes outside its own length).
// - Tables fed with the messages, and a synchronizer fed with the datagram as dump replies and as
//   events, compute a path without crashing; a satisfied path names a default route.
@testable import Curlew
import FuzzSupport
import Glibc

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    let envelopes = NetlinkParser.parse(bytes)
    check(envelopes.count <= bytes.count / NetlinkParser.headerSize, "\(envelopes.count) messages in \(bytes.count) bytes")
    for envelope in envelopes {
        switch envelope.message {
        case .address(let address, _):
            let size = Int32(address.family) == AF_INET ? 4 : 16
            check(address.bytes.count == size, "address of \(address.bytes.count) bytes for family \(address.family)")
        case .route(let route, _):
            let size = Int32(route.family) == AF_INET ? 4 : 16
            check(Int32(route.family) == AF_INET || Int32(route.family) == AF_INET6, "route family \(route.family)")
            check(route.gateway.map { $0.count == size } ?? true, "gateway size")
            check(route.destination.isEmpty || route.destination.count == size, "destination size")
            check(Int(route.destinationLength) <= size * 8, "destination length \(route.destinationLength)")
        default: break
        }
    }
    // Message by message, each cut at its own length.
    var pieces: [NetlinkEnvelope] = []
    var offset = 0
    for _ in envelopes {
        let length = bytes[offset..<offset + 4].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        let end = offset + Int(length)
        pieces += NetlinkParser.parse(Array(bytes[offset..<end]))
        offset = min(bytes.count, offset + NetlinkParser.align(Int(length)))
    }
    check(pieces == envelopes, "parsing message by message differs")

    var tables = NetworkTables()
    for envelope in envelopes { tables.apply(envelope.message) }
    let path = tables.path()
    check(!path.isSatisfied || path.hasIPv4DefaultRoute || path.hasIPv6DefaultRoute, "satisfied without a default route")
    _ = path.description

    // As the replies to the first dump (whatever port and sequence the bytes say), then as events.
    var synchronizer = NetlinkSynchronizer(port: envelopes.first?.port ?? 0)
    _ = synchronizer.start()
    _ = synchronizer.receive(envelopes)
    _ = synchronizer.lostMessages()
    _ = synchronizer.receive(envelopes)
    _ = synchronizer.tables.path()
    return 0
}

/// The executable's entry point (SwiftPM aliases `main` to it): libFuzzer's driver.
@_cdecl("netlink_main")
public func netlinkMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data) ?? UnsafeRawPointer(bitPattern: 1)!, size) }
}
