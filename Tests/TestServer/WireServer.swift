import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A TCP server on 127.0.0.1 that hands each connection to the test as raw bytes, for faults
/// at the byte level: it records exactly what arrived (nothing is parsed, merged or repaired),
/// reads from the socket only while the test waits for bytes (so a test can stall a client's
/// upload against full socket buffers), and sends whatever bytes the test writes.
public final class WireServer: Sendable {
    /// The TCP port.
    public let port: Int
    /// `http://127.0.0.1:PORT`.
    public let baseURL: URL
    private let listener: any Channel
    private let accepted: AcceptedConnections

    private init(listener: any Channel, port: Int, baseURL: URL, accepted: AcceptedConnections) {
        self.listener = listener
        self.port = port
        self.baseURL = baseURL
        self.accepted = accepted
    }

    /// Starts listening on 127.0.0.1 at a port the system picks.
    public static func start() async throws -> WireServer {
        let accepted = AcceptedConnections()
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.autoRead, value: false)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let connection = WireConnection(channel: channel)
                    try channel.pipeline.syncOperations.addHandler(WireConnectionHandler(connection: connection))
                    accepted.add(connection)
                }
            }
        let listener = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
        guard let port = listener.localAddress?.port, let baseURL = URL(string: "http://127.0.0.1:\(port)") else {
            try? await listener.close()
            throw TestServerError("the wire server has no port")
        }
        listener.closeFuture.whenComplete { _ in accepted.stop() }
        return WireServer(listener: listener, port: port, baseURL: baseURL, accepted: accepted)
    }

    /// The URL of `pathAndQuery` on ``baseURL``.
    public func url(_ pathAndQuery: String) -> URL {
        URL(string: baseURL.absoluteString + (pathAndQuery.hasPrefix("/") ? "" : "/") + pathAndQuery) ?? baseURL
    }

    /// The next connection a client opened, in the order they were accepted.
    public func nextConnection() async throws -> WireConnection {
        guard let next = await accepted.next() else {
            throw TestServerError("the wire server stopped before another connection")
        }
        return next
    }

    /// Stops listening; open connections stay until closed.
    public func shutdown() async {
        try? await listener.close()
    }
}

/// Connections in the order they were accepted, handed to whoever waits for the next one.
private final class AcceptedConnections: Sendable {
    private struct State {
        var pending: [WireConnection] = []
        var waiters: [CheckedContinuation<WireConnection?, Never>] = []
        var stopped = false
    }

    private let state = Mutex(State())

    func add(_ connection: WireConnection) {
        let waiter = state.withLock { state -> CheckedContinuation<WireConnection?, Never>? in
            if state.waiters.isEmpty {
                state.pending.append(connection)
                return nil
            }
            return state.waiters.removeFirst()
        }
        waiter?.resume(returning: connection)
    }

    func stop() {
        let waiters = state.withLock { state -> [CheckedContinuation<WireConnection?, Never>] in
            state.stopped = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: nil) }
    }

    func next() async -> WireConnection? {
        await withCheckedContinuation { (continuation: CheckedContinuation<WireConnection?, Never>) in
            let ready = state.withLock { state -> WireConnection?? in
                if !state.pending.isEmpty { return .some(state.pending.removeFirst()) }
                if state.stopped { return .some(nil) }
                state.waiters.append(continuation)
                return .none
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

/// One accepted connection of a ``WireServer``.
public final class WireConnection: Sendable {
    private struct Waiter {
        let condition: @Sendable ([UInt8]) -> Bool
        let continuation: CheckedContinuation<[UInt8], Never>
    }

    private struct State {
        var received: [UInt8] = []
        var closedByPeer = false
        var waiters: [Waiter] = []
    }

    private let channel: any Channel
    private let state = Mutex(State())

    init(channel: any Channel) {
        self.channel = channel
    }

    /// Every byte received so far, verbatim.
    public var received: [UInt8] { state.withLock { $0.received } }

    /// Whether the client closed (or reset) the connection.
    public var isClosedByPeer: Bool { state.withLock { $0.closedByPeer } }

    /// Reads until everything received satisfies `condition`, or the client closes the
    /// connection; returns everything received. The socket is read only while a call waits.
    @discardableResult
    public func read(until condition: @escaping @Sendable ([UInt8]) -> Bool) async -> [UInt8] {
        await withCheckedContinuation { (continuation: CheckedContinuation<[UInt8], Never>) in
            let ready: [UInt8]? = state.withLock { state in
                if condition(state.received) || state.closedByPeer { return state.received }
                state.waiters.append(Waiter(condition: condition, continuation: continuation))
                return nil
            }
            if let ready {
                continuation.resume(returning: ready)
            } else {
                channel.read()
            }
        }
    }

    /// Reads until at least `count` bytes arrived in all, or the client closes.
    @discardableResult
    public func read(atLeast count: Int) async -> [UInt8] {
        await read { $0.count >= count }
    }

    /// Reads until the first request head is complete (its blank line), or the client closes.
    @discardableResult
    public func readHead() async -> [UInt8] {
        await read { Self.headLength(of: $0) != nil }
    }

    /// The length of the head at the start of `bytes`, blank line included, if it is complete.
    public static func headLength(of bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index + 4
        }
        return nil
    }

    /// Writes `bytes` as they are.
    public func send(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
    }

    /// Writes `text` as UTF-8.
    public func send(_ text: String) async throws {
        try await send(Array(text.utf8))
    }

    /// Closes the connection.
    public func close() async {
        try? await channel.close()
    }

    // MARK: From the channel's event loop

    func arrived(_ bytes: ByteBufferView) {
        let satisfied = state.withLock { state -> [Waiter] in
            state.received.append(contentsOf: bytes)
            return takeSatisfied(&state)
        }
        for waiter in satisfied { waiter.continuation.resume(returning: received) }
    }

    /// Whether someone still waits for bytes, so the handler reads on.
    var wantsMore: Bool { state.withLock { !$0.waiters.isEmpty } }

    func closed() {
        let all = state.withLock { state -> [Waiter] in
            state.closedByPeer = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in all { waiter.continuation.resume(returning: received) }
    }

    private func takeSatisfied(_ state: inout State) -> [Waiter] {
        let received = state.received
        let satisfied = state.waiters.filter { $0.condition(received) }
        state.waiters.removeAll { $0.condition(received) }
        return satisfied
    }
}

/// Feeds a ``WireConnection`` and reads on while it has waiters.
private final class WireConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let connection: WireConnection

    init(connection: WireConnection) {
        self.connection = connection
    }

    func channelActive(context: ChannelHandlerContext) {
        // A read asked for before the channel was active is dropped: ask again.
        if connection.wantsMore { context.read() }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        connection.arrived(unwrapInboundIn(data).readableBytesView)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if connection.wantsMore { context.read() }
    }

    func channelInactive(context: ChannelHandlerContext) {
        connection.closed()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
