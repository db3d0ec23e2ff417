import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A small HTTP/1.1 server on a random loopback port whose answers come from an async closure,
/// for tests that need behaviour the main ``TestServer`` does not script: counters across
/// requests, token endpoints, failures that stop after a while.
public final class ScriptedHTTPServer: Sendable {
    /// Answers one request.
    public typealias Handler = @Sendable (ScriptedRequest) async -> ScriptedResponse

    private let listeners: [any Channel]
    /// The TCP port.
    public let port: Int
    /// `http://127.0.0.1:PORT`.
    public let baseURL: URL
    /// `http://localhost:PORT`: the same server under another host name.
    public let localhostBaseURL: URL

    private init(listeners: [any Channel], port: Int, baseURL: URL, localhostBaseURL: URL) {
        self.listeners = listeners
        self.port = port
        self.baseURL = baseURL
        self.localhostBaseURL = localhostBaseURL
    }

    /// Starts a server on 127.0.0.1 (and ::1 on the same port when possible).
    public static func start(handler: @escaping Handler) async throws -> ScriptedHTTPServer {
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.backlog, value: 512)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(ScriptedConnectionHandler(handler: handler))
                }
            }
        let primary = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
        guard let port = primary.localAddress?.port,
            let baseURL = URL(string: "http://127.0.0.1:\(port)"),
            let localhostBaseURL = URL(string: "http://localhost:\(port)")
        else {
            try? await primary.close()
            throw TestServerError("the scripted server has no port")
        }
        var listeners = [primary]
        if let secondary = try? await bootstrap.bind(host: "::1", port: port).get() { listeners.append(secondary) }
        return ScriptedHTTPServer(listeners: listeners, port: port, baseURL: baseURL, localhostBaseURL: localhostBaseURL)
    }

    /// The URL of `pathAndQuery` on ``baseURL``.
    public func url(_ pathAndQuery: String) -> URL {
        URL(string: baseURL.absoluteString + (pathAndQuery.hasPrefix("/") ? "" : "/") + pathAndQuery) ?? baseURL
    }

    /// The URL of `pathAndQuery` on ``localhostBaseURL``.
    public func localhostURL(_ pathAndQuery: String) -> URL {
        URL(string: localhostBaseURL.absoluteString + (pathAndQuery.hasPrefix("/") ? "" : "/") + pathAndQuery)
            ?? localhostBaseURL
    }

    /// Stops listening.
    public func shutdown() async {
        for listener in listeners { try? await listener.close() }
    }
}

/// Collects one request at a time and answers it with the handler's response.
private final class ScriptedConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let handler: ScriptedHTTPServer.Handler
    private var head: HTTPRequestHead?
    private var body = Data()

    init(handler: @escaping ScriptedHTTPServer.Handler) {
        self.handler = handler
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = Data()
        case .body(var buffer):
            if let bytes = buffer.readBytes(length: buffer.readableBytes) { body.append(contentsOf: bytes) }
        case .end:
            guard let head else { return }
            self.head = nil
            respond(to: head, body: body, context: context)
        }
    }

    private func respond(to head: HTTPRequestHead, body: Data, context: ChannelHandlerContext) {
        let request = ScriptedRequest(
            method: head.method.rawValue, target: head.uri,
            headerLines: head.headers.map { (name: $0.name, value: $0.value) }, body: body)
        let keepAlive = head.isKeepAlive
        let version = head.version
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        let handler = self.handler
        let eventLoop = context.eventLoop
        Task { @Sendable in
            // What the server could not parse, or the handler found ambiguous, is a 400.
            let early = request.complaints.all
            let handled = early.isEmpty ? await handler(request) : nil
            let complaints = request.complaints.all
            let response = complaints.isEmpty ? handled ?? .text("no response", status: 500)
                : .text("bad request: " + complaints.joined(separator: "; "), status: 400)
            eventLoop.execute {
                ScriptedResponseWriter.write(response, keepAlive: keepAlive, version: version, context: bound.value)
            }
        }
    }
}

/// Writes a scripted response on the connection's event loop.
private enum ScriptedResponseWriter {
    static func write(_ response: ScriptedResponse, keepAlive: Bool, version: HTTPVersion, context: ChannelHandlerContext) {
        guard !response.dropsConnection else {
            context.close(promise: nil)
            return
        }
        var fields = HTTPHeaders(response.headers)
        fields.replaceOrAdd(name: "Content-Length", value: String(response.body.count))
        if !keepAlive { fields.replaceOrAdd(name: "Connection", value: "close") }
        let head = HTTPResponseHead(version: version, status: HTTPResponseStatus(statusCode: response.status), headers: fields)
        context.write(NIOAny(HTTPServerResponsePart.head(head)), promise: nil)
        if !response.body.isEmpty {
            context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: response.body)))), promise: nil)
        }
        let done = context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)))
        if !keepAlive {
            done.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }
}
