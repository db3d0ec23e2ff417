import Foundation
import NIOCore
import NIOHTTP1
import NIOWebSocket
import Synchronization

/// The demo server's chat room at `ws://127.0.0.1:PORT/chat?name=NAME`: every text message a
/// member sends goes to every member (the sender too) as `NAME: text`; joins and departures are
/// announced as `* NAME joined` and `* NAME left`.
final class ChatRoom: Sendable {
    private let members = Mutex<[ObjectIdentifier: any Channel]>([:])

    /// The upgrader that turns `GET /chat` into a member of this room; other paths stay HTTP.
    /// The HTTP handler named `httpHandlerName` leaves the pipeline before the member's joins,
    /// and before any frame is read.
    func upgrader(replacing httpHandlerName: String) -> NIOWebSocketServerUpgrader {
        NIOWebSocketServerUpgrader(
            shouldUpgrade: { channel, head in
                let path = URLComponents(string: head.uri)?.path
                return channel.eventLoop.makeSucceededFuture(path == "/chat" ? HTTPHeaders() : nil)
            },
            upgradePipelineHandler: { [self] channel, head in
                let name = URLComponents(string: head.uri)?.queryItems?.first { $0.name == "name" }?.value ?? "guest"
                return channel.pipeline.removeHandler(name: httpHandlerName).flatMapThrowing {
                    try channel.pipeline.syncOperations.addHandler(ChatMember(name: String(name.prefix(32)), room: self))
                }
            })
    }

    func join(_ channel: any Channel, name: String) {
        members.withLock { $0[ObjectIdentifier(channel)] = channel }
        broadcast("* \(name) joined")
    }

    func leave(_ channel: any Channel, name: String) {
        let removed = members.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) != nil }
        if removed { broadcast("* \(name) left") }
    }

    func broadcast(_ text: String) {
        let everyone = members.withLock { Array($0.values) }
        for channel in everyone {
            let frame = WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: text))
            channel.writeAndFlush(frame, promise: nil)
        }
    }
}

/// One member's connection: text frames go to the room, pings are answered, a close is
/// answered and ends the connection.
private final class ChatMember: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let name: String
    private let room: ChatRoom
    private var closing = false

    init(name: String, room: ChatRoom) {
        self.name = name
        self.room = room
    }

    func handlerAdded(context: ChannelHandlerContext) {
        room.join(context.channel, name: name)
    }

    func channelInactive(context: ChannelHandlerContext) {
        room.leave(context.channel, name: name)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            let text = String(buffer: frame.unmaskedData)
            room.broadcast("\(name): \(text)")
        case .ping:
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .connectionClose:
            room.leave(context.channel, name: name)
            guard !closing else { return }
            closing = true
            var payload = frame.unmaskedData
            let code = payload.readInteger(as: UInt16.self) ?? 1000
            var answer = context.channel.allocator.buffer(capacity: 2)
            answer.writeInteger(code == 1005 ? 1000 : code)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: answer)))
                .whenComplete { _ in channel.close(promise: nil) }
        default:
            break
        }
    }
}
