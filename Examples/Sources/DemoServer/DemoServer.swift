import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A tiny HTTP/1.1 server on a random loopback port, for the examples.
///
/// Routes: `GET /users/{id}` (JSON), `GET /users` (a JSON list under `data.items`),
/// `GET /files/{name}?size=N&rate=B` (N bytes, paced at about B bytes per second),
/// `GET /resumable/{name}?size=N&rate=B` (the same with an `ETag` and `Range`/`If-Range`),
/// `GET /drip?count=N` (N small chunks, 150 ms apart), `GET /feed.xml` (an RSS feed),
/// `GET /logs.ndjson` (JSON Lines), `GET /events` (Server-Sent Events), a WebSocket chat room
/// at `/chat?name=NAME` (see ``ChatRoom``), and any other path echoes the method, headers and
/// body as JSON.
public final class DemoServer: Sendable {
    private let channel: any Channel
    /// The port the server listens on.
    public let port: Int

    private init(channel: any Channel, port: Int) {
        self.channel = channel
        self.port = port
    }

    /// Starts the server on 127.0.0.1.
    public static func start() async throws -> DemoServer {
        let room = ChatRoom()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    // After a WebSocket upgrade the HTTP handler goes, and the room's takes over.
                    let upgrade: NIOHTTPServerUpgradeConfiguration = (
                        upgraders: [room.upgrader(replacing: "demo")], completionHandler: { _ in }
                    )
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withServerUpgrade: upgrade)
                    try channel.pipeline.syncOperations.addHandler(DemoHandler(), name: "demo")
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return DemoServer(channel: channel, port: channel.localAddress?.port ?? 0)
    }

    /// `http://127.0.0.1:PORT` followed by `path`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Stops listening.
    public func shutdown() async throws { try await channel.close() }
}

/// Answers one request at a time on a connection.
private final class DemoHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private var head: HTTPRequestHead?
    private var body = ByteBuffer()

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.clear()
        case .body(var chunk):
            body.writeBuffer(&chunk)
        case .end:
            guard let head else { return }
            respond(to: head, context: context)
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let components = URLComponents(string: head.uri)
        let path = components?.path ?? head.uri
        let query = Dictionary(
            (components?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        if path.hasPrefix("/users/") {
            let id = Int(path.dropFirst("/users/".count)) ?? 0
            send(#"{"id":\#(id),"name":"Ada Lovelace","email":"ada@example.com"}"#, type: "application/json", context: context)
        } else if path == "/users" {
            send(#"{"data":{"items":[{"id":1,"name":"Ada","email":"ada@example.com"},{"id":2,"name":"Grace","email":"grace@example.com"},{"id":"oops"}]}}"#, type: "application/json", context: context)
        } else if path == "/feed.xml" {
            send(Self.feed, type: "application/rss+xml; charset=utf-8", context: context)
        } else if path == "/logs.ndjson" {
            let lines = (1...5).map { #"{"level":"\#($0 == 3 ? "warn" : "info")","message":"event \#($0)"}"# }
            send(lines.joined(separator: "\n") + "\n", type: "application/x-ndjson", context: context)
        } else if path == "/events" {
            send("event: greeting\ndata: hello\ndata: world\nid: 1\n\nevent: done\ndata: bye\nid: 2\n\n", type: "text/event-stream", context: context)
        } else if path.hasPrefix("/files/") {
            let size = Int(query["size"] ?? "") ?? 8 << 20
            let rate = Int(query["rate"] ?? "") ?? 8 << 20
            let name = String(path.dropFirst("/files/".count))
            var headers = HTTPHeaders([("Content-Length", "\(size)"), ("Content-Type", "application/octet-stream"),
                                       ("Content-Disposition", "attachment; filename=\"\(name)\"")])
            headers.add(name: "Connection", value: "keep-alive")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
            pace(remaining: size, chunk: 64 << 10, interval: .milliseconds(Int64(max(1, (64 << 10) * 1000 / max(rate, 1)))), context: context)
        } else if path.hasPrefix("/resumable/") {
            respondResumable(to: head, size: Int(query["size"] ?? "") ?? 8 << 20, rate: Int(query["rate"] ?? "") ?? 8 << 20, context: context)
        } else if path == "/drip" {
            let count = Int(query["count"] ?? "") ?? 5
            let headers = HTTPHeaders([("Content-Length", "\(count * 16)"), ("Content-Type", "text/plain")])
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
            pace(remaining: count * 16, chunk: 16, interval: .milliseconds(150), context: context)
        } else {
            let text = body.getString(at: body.readerIndex, length: body.readableBytes) ?? ""
            let headers = Dictionary(head.headers.map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { $1 })
            let json = try? JSONSerialization.data(withJSONObject: ["method": head.method.rawValue, "path": path, "query": components?.percentEncodedQuery ?? "", "headers": headers, "body": text])
            send(String(decoding: json ?? Data(), as: UTF8.self), type: "application/json", context: context)
        }
    }

    static let feed = """
        <?xml version="1.0" encoding="UTF-8"?>
        <rss version="2.0"><channel><title>Curlew news</title>
        <item><title>Curlew 0.1 released</title><link>https://example.com/1</link></item>
        <item><title>Streaming with backpressure</title><link>https://example.com/2</link></item>
        </channel></rss>
        """

    private func send(_ text: String, type: String, context: ChannelHandlerContext) {
        let buffer = ByteBuffer(string: text)
        let headers = HTTPHeaders([("Content-Length", "\(buffer.readableBytes)"), ("Content-Type", type)])
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    /// A file with an `ETag` that honours `Range: bytes=N-` with `If-Range`: `206` from N when
    /// the validator matches, the whole file with `200` otherwise. Byte i is `i % 251`.
    private func respondResumable(to head: HTTPRequestHead, size: Int, rate: Int, context: ChannelHandlerContext) {
        let etag = "\"demo-\(size)\""
        var start = 0
        if let range = head.headers.first(name: "Range"), range.hasPrefix("bytes="), range.hasSuffix("-"),
            let from = Int(range.dropFirst("bytes=".count).dropLast()), from < size,
            head.headers.first(name: "If-Range").map({ $0 == etag }) ?? true
        {
            start = from
        }
        var headers = HTTPHeaders([("Content-Length", "\(size - start)"), ("Content-Type", "application/octet-stream"), ("ETag", etag)])
        if start > 0 { headers.add(name: "Content-Range", value: "bytes \(start)-\(size - 1)/\(size)") }
        let status: HTTPResponseStatus = start > 0 ? .partialContent : .ok
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        pace(remaining: size - start, chunk: 64 << 10, interval: .milliseconds(Int64(max(1, (64 << 10) * 1000 / max(rate, 1)))), context: context, offset: start)
    }

    /// Sends `remaining` bytes in chunks, one chunk per interval.
    /// With an `offset`, the bytes are the `i % 251` pattern from that offset; without one, `c`s.
    private func pace(remaining: Int, chunk: Int, interval: TimeAmount, context: ChannelHandlerContext, offset: Int? = nil) {
        guard remaining > 0 else {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            return
        }
        let count = min(chunk, remaining)
        let buffer = offset.map { start in ByteBuffer(bytes: (start..<start + count).map { UInt8($0 % 251) }) }
            ?? ByteBuffer(repeating: UInt8(ascii: "c"), count: count)
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: interval) {
            let (handler, context) = loopBound.value
            handler.pace(
                remaining: remaining - count, chunk: chunk, interval: interval, context: context, offset: offset.map { $0 + count })
        }
    }
}
