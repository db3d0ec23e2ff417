#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore
import NIOHTTP1

/// Serves HTTP/1.1 requests on one connection, one at a time, in order.
///
/// Sits after the NIO request decoder. Responses are written as raw bytes by playing a
/// ``ResponseScript``; the handler writes only while the channel is writable and resumes on
/// writability, so large bodies stream with bounded memory. Requests pipelined behind a response
/// in progress are queued; when the queue grows large, reading stops until it drains.
final class HTTPConnectionHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// What the response in progress is waiting for.
    private enum Phase {
        case idle
        case running
        case waitingForWritability
        case waitingForTimer(Scheduled<Void>)
        case stalled
    }

    /// The response being played.
    private struct ActiveResponse {
        let script: ResponseScript
        let keepAlive: Bool
        let headOnly: Bool
    }

    /// Above this many queued bytes of pipelined requests, reading pauses.
    private static let queueHighWater = 1 << 20

    private let state: ServerState
    private var context: ChannelHandlerContext?
    private var localAuthority = "127.0.0.1"

    private var incoming: ReceivedRequest?
    private var queued = CircularBuffer<HTTPServerRequestPart>()
    private var queuedBytes = 0
    private var response: ActiveResponse?
    private var phase = Phase.idle
    private var isPumping = false
    private var isReadPending = false
    private var isClosed = false

    init(state: ServerState) {
        self.state = state
    }

    // MARK: Lifecycle

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if let address = context.channel.localAddress, let port = address.port {
            let ip = address.ipAddress ?? "127.0.0.1"
            localAuthority = ip.contains(":") ? "[\(ip)]:\(port)" : "\(ip):\(port)"
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        tearDown()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        tearDown()
        context.fireChannelInactive()
    }

    private func tearDown() {
        isClosed = true
        if case .waitingForTimer(let timer) = phase {
            timer.cancel()
        }
        phase = .idle
        response = nil
        incoming = nil
        queued.removeAll()
        queuedBytes = 0
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !isClosed else { return }
        if error is HTTPParserError, response == nil {
            // The request could not be parsed: answer 400 and close.
            isClosed = true
            let body = "bad request: \(error)\n"
            let head = ResponseHead(
                status: 400,
                headers: [
                    ("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", String(body.utf8.count)),
                    ("Connection", "close"),
                ])
            var bytes = head.serialized(allocator: context.channel.allocator)
            bytes.writeString(body)
            context.writeAndFlush(wrapOutboundOut(bytes)).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        } else {
            isClosed = true
            context.close(promise: nil)
        }
    }

    // MARK: Reading

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        guard !isClosed else { return }
        if response != nil || !queued.isEmpty {
            queued.append(part)
            if case .body(let buffer) = part {
                queuedBytes += buffer.readableBytes
            }
            return
        }
        handle(part, context: context)
    }

    func read(context: ChannelHandlerContext) {
        if queuedBytes > Self.queueHighWater {
            isReadPending = true
        } else {
            context.read()
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, case .waitingForWritability = phase {
            phase = .running
            pump()
        }
        context.fireChannelWritabilityChanged()
    }

    private func handle(_ part: HTTPServerRequestPart, context: ChannelHandlerContext) {
        switch part {
        case .head(let head):
            let request = ReceivedRequest(
                head: head, localAuthority: localAuthority, allocator: context.channel.allocator)
            state.requestReceived(path: request.path)
            incoming = request
            let expectsContinue = head.headers["Expect"].contains { $0.lowercased() == "100-continue" }
            if expectsContinue && head.version.major == 1 && head.version.minor >= 1 {
                let interim = context.channel.allocator.buffer(staticString: "HTTP/1.1 100 Continue\r\n\r\n")
                context.writeAndFlush(wrapOutboundOut(interim), promise: nil)
            }
        case .body(let buffer):
            incoming?.consume(buffer)
        case .end:
            guard let request = incoming else { return }
            incoming = nil
            let script = Router.respond(to: request, state: state, allocator: context.channel.allocator)
            response = ActiveResponse(
                script: script, keepAlive: request.keepAlive, headOnly: request.head.method == .HEAD)
            phase = .running
            pump()
        }
    }

    /// Handles queued pipelined parts until one of them starts a response.
    private func drainQueue(context: ChannelHandlerContext) {
        while response == nil, !isClosed, let part = queued.popFirst() {
            if case .body(let buffer) = part {
                queuedBytes -= buffer.readableBytes
            }
            handle(part, context: context)
        }
        if isReadPending, queuedBytes <= Self.queueHighWater, !isClosed {
            isReadPending = false
            context.read()
        }
    }

    // MARK: Writing

    /// Plays the current response's steps while the channel is writable.
    private func pump() {
        guard !isPumping, let context else { return }
        isPumping = true
        defer { isPumping = false }
        while !isClosed, let active = response, case .running = phase {
            if !context.channel.isWritable {
                context.flush()
                if !context.channel.isWritable {
                    phase = .waitingForWritability
                    return
                }
            }
            switch active.script.next() {
            case .head(let bytes):
                context.write(wrapOutboundOut(bytes), promise: nil)
                if active.headOnly {
                    finishResponse(context: context)
                }
            case .body(let bytes):
                if !active.headOnly {
                    context.write(wrapOutboundOut(bytes), promise: nil)
                }
            case .wait(let delay):
                context.flush()
                let timer = context.eventLoop.assumeIsolated().scheduleTask(in: delay) { [self] in
                    guard case .waitingForTimer = self.phase else { return }
                    self.phase = .running
                    self.pump()
                }
                phase = .waitingForTimer(timer)
            case .end:
                finishResponse(context: context)
            case .close:
                closeAfterFlush(context: context)
            case .reset:
                closeAfterFlush(context: context, abortively: true)
            case .stall:
                context.flush()
                phase = .stalled
            }
        }
    }

    /// Completes the current response and moves on to the next queued request, if any.
    private func finishResponse(context: ChannelHandlerContext) {
        guard let active = response else { return }
        response = nil
        phase = .idle
        guard active.keepAlive else {
            closeAfterFlush(context: context)
            return
        }
        context.flush()
        drainQueue(context: context)
    }

    /// Closes the connection once everything written so far has reached the socket.
    /// With `abortively`, the close sends a TCP reset instead of a FIN.
    private func closeAfterFlush(context: ChannelHandlerContext, abortively: Bool = false) {
        isClosed = true
        response = nil
        phase = .idle
        let marker = context.channel.allocator.buffer(capacity: 0)
        context.writeAndFlush(wrapOutboundOut(marker)).assumeIsolated().whenComplete { _ in
            guard abortively, let options = context.channel as? any SocketOptionProvider else {
                context.close(promise: nil)
                return
            }
            options.setSoLinger(linger(l_onoff: 1, l_linger: 0)).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        }
    }
}
