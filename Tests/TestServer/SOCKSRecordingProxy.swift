import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A SOCKS4, SOCKS4a and SOCKS5 proxy on a loopback port, written for the tests (microsocks
/// speaks SOCKS5 only, and neither shows what it was sent). It records every handshake as it
/// arrived on the wire, so a test can see whether the client sent a host name or an address;
/// it resolves names only from its own table (`names`), so a name only the proxy knows proves
/// the proxy, not the client, resolved it; then it relays bytes both ways.
public final class SOCKSRecordingProxy: Sendable {
    /// One handshake, as the client sent it.
    public struct Handshake: Sendable, CustomStringConvertible {
        /// The protocol the client spoke.
        public enum Version: Sendable, Equatable { case socks4, socks4a, socks5 }
        public let version: Version
        /// Every byte of the handshake the client sent, in order (SOCKS5: greeting, the
        /// user/password sub-negotiation if any, and the request).
        public let bytes: [UInt8]
        /// The target as the client named it: a dotted IPv4 address, an IPv6 address, or a name.
        public let target: String
        /// The target's port.
        public let port: Int
        /// Whether the client sent a host name (SOCKS4a, SOCKS5 address type 3) rather than an address.
        public let sentName: Bool
        /// SOCKS5's address type byte (1 IPv4, 3 name, 4 IPv6); nil for SOCKS4.
        public let addressType: UInt8?
        /// The SOCKS4 user ID or the SOCKS5 user name; nil when none was sent.
        public let user: String?

        public var description: String {
            "\(version) \(sentName ? "name" : "address") \(target):\(port) user \(user ?? "-")"
        }
    }

    /// The loopback port the proxy listens on.
    public let port: Int
    private let listener: any Channel
    private let shared: Shared

    private init(port: Int, listener: any Channel, shared: Shared) {
        self.port = port
        self.listener = listener
        self.shared = shared
    }

    /// Every handshake so far, in the order they completed.
    public var handshakes: [Handshake] { shared.handshakes.withLock { $0 } }

    /// How many connections clients opened to the proxy, handshake or not.
    public var connections: Int { shared.connections.load(ordering: .relaxed) }

    /// Shared between the listener's connections.
    final class Shared: Sendable {
        let names: [String: String]
        let credentials: (username: String, password: String)?
        let requiredUserID: String?
        let handshakes = Mutex<[Handshake]>([])
        let connections = Atomic(0)

        init(names: [String: String], credentials: (username: String, password: String)?, requiredUserID: String?) {
            self.names = names
            self.credentials = credentials
            self.requiredUserID = requiredUserID
        }
    }

    /// Starts a proxy on 127.0.0.1. `names` is all it can resolve (a name to an IPv4 address;
    /// addresses are used as they are). With `credentials`, SOCKS5 clients must authenticate
    /// with them (RFC 1929); with `requiredUserID`, SOCKS4 requests with another user ID are
    /// refused (`0x5B`).
    public static func start(
        names: [String: String] = [:], credentials: (username: String, password: String)? = nil,
        requiredUserID: String? = nil
    ) async throws -> SOCKSRecordingProxy {
        let shared = Shared(names: names, credentials: credentials, requiredUserID: requiredUserID)
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                shared.connections.add(1, ordering: .relaxed)
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(SOCKSHandshakeHandler(shared: shared))
                }
            }
        let listener = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
        guard let port = listener.localAddress?.port else {
            try? await listener.close()
            throw TestServerError("the SOCKS proxy has no port")
        }
        return SOCKSRecordingProxy(port: port, listener: listener, shared: shared)
    }

    /// Stops listening; relayed connections close when either end does.
    public func stop() async {
        try? await listener.close()
    }
}

/// Reads one SOCKS handshake, connects to the target and hands the connection to two
/// ``SOCKSRelayHandler``s.
final class SOCKSHandshakeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum Stage { case start, socks5Authentication, socks5Request, connecting, failed }

    private let shared: SOCKSRecordingProxy.Shared
    private var pending: [UInt8] = []
    private var recorded: [UInt8] = []
    private var stage = Stage.start
    private var socks5User: String?

    init(shared: SOCKSRecordingProxy.Shared) {
        self.shared = shared
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        pending += unwrapInboundIn(data).readableBytesView
        advance(context: context)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// Consumes every complete handshake message in `pending`.
    private func advance(context: ChannelHandlerContext) {
        while !pending.isEmpty {
            switch stage {
            case .start:
                switch pending[0] {
                case 4: guard readSOCKS4(context: context) else { return }
                case 5: guard readGreeting(context: context) else { return }
                default: fail(context: context, reply: [])
                }
            case .socks5Authentication: guard readAuthentication(context: context) else { return }
            case .socks5Request: guard readSOCKS5Request(context: context) else { return }
            case .connecting, .failed: return
            }
        }
    }

    /// Takes `count` bytes from `pending` into `recorded`.
    private func take(_ count: Int) -> [UInt8] {
        let bytes = Array(pending.prefix(count))
        pending.removeFirst(count)
        recorded += bytes
        return bytes
    }

    private func readSOCKS4(context: ChannelHandlerContext) -> Bool {
        // VN CD DSTPORT(2) DSTIP(4) USERID NUL [HOST NUL for 4a]
        guard pending.count >= 9, let userEnd = pending[8...].firstIndex(of: 0) else { return false }
        let address = Array(pending[4..<8])
        let isSOCKS4a = address[0] == 0 && address[1] == 0 && address[2] == 0 && address[3] != 0
        var end = userEnd
        var host: String
        if isSOCKS4a {
            guard let hostEnd = pending[(userEnd + 1)...].firstIndex(of: 0) else { return false }
            host = String(decoding: pending[(userEnd + 1)..<hostEnd], as: UTF8.self)
            end = hostEnd
        } else {
            host = address.map(String.init).joined(separator: ".")
        }
        let bytes = take(end + 1)
        let port = Int(bytes[2]) << 8 | Int(bytes[3])
        let userID = String(decoding: bytes[8..<userEnd], as: UTF8.self)
        record(
            .init(
                version: isSOCKS4a ? .socks4a : .socks4, bytes: recorded, target: host, port: port, sentName: isSOCKS4a,
                addressType: nil, user: userID.isEmpty ? nil : userID))
        let refusal: [UInt8] = [0, 0x5B, 0, 0, 0, 0, 0, 0]
        if let required = shared.requiredUserID, required != userID {
            fail(context: context, reply: refusal)
            return false
        }
        connect(context: context, host: host, port: port, success: [0, 0x5A, 0, 0, 0, 0, 0, 0], failure: refusal)
        return false
    }

    private func readGreeting(context: ChannelHandlerContext) -> Bool {
        guard pending.count >= 2, pending.count >= 2 + Int(pending[1]) else { return false }
        let greeting = take(2 + Int(pending[1]))
        let methods = greeting.dropFirst(2)
        if shared.credentials != nil {
            guard methods.contains(2) else {
                fail(context: context, reply: [5, 0xFF])
                return false
            }
            send([5, 2], context: context)
            stage = .socks5Authentication
        } else {
            guard methods.contains(0) else {
                fail(context: context, reply: [5, 0xFF])
                return false
            }
            send([5, 0], context: context)
            stage = .socks5Request
        }
        return true
    }

    private func readAuthentication(context: ChannelHandlerContext) -> Bool {
        // VER ULEN UNAME PLEN PASSWD (RFC 1929)
        guard pending.count >= 2 else { return false }
        let userLength = Int(pending[1])
        guard pending.count >= 3 + userLength else { return false }
        let passwordLength = Int(pending[2 + userLength])
        guard pending.count >= 3 + userLength + passwordLength else { return false }
        let message = take(3 + userLength + passwordLength)
        let user = String(decoding: message[2..<(2 + userLength)], as: UTF8.self)
        let password = String(decoding: message[(3 + userLength)...], as: UTF8.self)
        socks5User = user
        guard let credentials = shared.credentials, credentials.username == user, credentials.password == password else {
            fail(context: context, reply: [1, 1])
            return false
        }
        send([1, 0], context: context)
        stage = .socks5Request
        return true
    }

    private func readSOCKS5Request(context: ChannelHandlerContext) -> Bool {
        // VER CMD RSV ATYP DST.ADDR DST.PORT(2)
        guard pending.count >= 5 else { return false }
        let addressType = pending[3]
        let addressLength: Int
        switch addressType {
        case 1: addressLength = 4
        case 3: addressLength = 1 + Int(pending[4])
        case 4: addressLength = 16
        default:
            fail(context: context, reply: [5, 8, 0, 1, 0, 0, 0, 0, 0, 0])
            return false
        }
        guard pending.count >= 4 + addressLength + 2 else { return false }
        let request = take(4 + addressLength + 2)
        let address = request[4..<(4 + addressLength)]
        let host: String
        switch addressType {
        case 1: host = address.map(String.init).joined(separator: ".")
        case 3: host = String(decoding: address.dropFirst(), as: UTF8.self)
        default:
            host = stride(from: address.startIndex, to: address.endIndex, by: 2)
                .map { String(Int(address[$0]) << 8 | Int(address[$0 + 1]), radix: 16) }.joined(separator: ":")
        }
        let port = Int(request[4 + addressLength]) << 8 | Int(request[5 + addressLength])
        record(
            .init(
                version: .socks5, bytes: recorded, target: host, port: port, sentName: addressType == 3,
                addressType: addressType, user: socks5User))
        let failure: [UInt8] = [5, 4, 0, 1, 0, 0, 0, 0, 0, 0]
        guard request[1] == 1 else {
            fail(context: context, reply: [5, 7, 0, 1, 0, 0, 0, 0, 0, 0])
            return false
        }
        connect(context: context, host: host, port: port, success: [5, 0, 0, 1, 0, 0, 0, 0, 0, 0], failure: failure)
        return false
    }

    private func record(_ handshake: SOCKSRecordingProxy.Handshake) {
        shared.handshakes.withLock { $0.append(handshake) }
    }

    private func send(_ bytes: [UInt8], context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: bytes)), promise: nil)
    }

    private func fail(context: ChannelHandlerContext, reply: [UInt8]) {
        stage = .failed
        if reply.isEmpty {
            context.close(promise: nil)
            return
        }
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: reply))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    /// Connects to `host` (through the proxy's own name table), answers the client, and relays.
    private func connect(context: ChannelHandlerContext, host: String, port: Int, success: [UInt8], failure: [UInt8]) {
        stage = .connecting
        let isAddress = host.split(separator: ".").count == 4 && host.allSatisfy { $0.isNumber || $0 == "." }
            || host.contains(":")
        guard let address = shared.names[host] ?? (isAddress ? host : nil) else {
            fail(context: context, reply: failure)
            return
        }
        let inbound = context.channel
        ClientBootstrap(group: context.eventLoop)
            .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { outbound in
                outbound.eventLoop.makeCompletedFuture {
                    try outbound.pipeline.syncOperations.addHandler(SOCKSRelayHandler(partner: inbound))
                }
            }
            .connect(host: address, port: port)
            .assumeIsolated()
            .whenComplete { result in
                switch result {
                case .failure:
                    self.fail(context: context, reply: failure)
                case .success(let outbound):
                    self.send(success, context: context)
                    do {
                        try context.pipeline.syncOperations.addHandler(SOCKSRelayHandler(partner: outbound))
                    } catch {
                        context.close(promise: nil)
                        outbound.close(promise: nil)
                        return
                    }
                    if !self.pending.isEmpty {
                        outbound.writeAndFlush(ByteBuffer(bytes: self.pending), promise: nil)
                        self.pending = []
                    }
                    context.pipeline.syncOperations.removeHandler(self, promise: nil)
                }
            }
    }
}

/// Writes what one side of a relayed connection reads to the other, and closes the other
/// when this side closes.
final class SOCKSRelayHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let partner: any Channel

    init(partner: any Channel) {
        self.partner = partner
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        partner.writeAndFlush(unwrapInboundIn(data), promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        partner.close(promise: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
