import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A minimal OAuth2 token endpoint and protected API on a random loopback port, so that the
/// example runs offline.
///
/// - `POST /token`: the `refresh_token` grant (form-encoded); waits 200 ms, then issues a new
///   access token and rotates the refresh token. Unknown refresh tokens get `invalid_grant`.
/// - `GET /api/...`: 200 with the path for the current access token, else 401 with
///   `WWW-Authenticate: Bearer error="invalid_token"`.
final class TokenServer: Sendable {
    private struct Tokens {
        // The token the client saved ("expired-token") is no longer the current one.
        var access = "access-1"
        var refresh = "refresh-1"
        var issued = 1
        var refreshCalls = 0
    }

    private let tokens = Mutex(Tokens())
    private let channel = Mutex<(any Channel)?>(nil)

    /// How many times the token endpoint was called.
    var refreshCalls: Int { tokens.withLock { $0.refreshCalls } }

    /// Starts listening; returns the port.
    func start() async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(TokenServerHandler(server: self))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        self.channel.withLock { $0 = channel }
        return channel.localAddress?.port ?? 0
    }

    func stop() async {
        try? await channel.withLock { $0 }?.close()
    }

    /// Answers one request: status, headers, body.
    func answer(method: HTTPMethod, path: String, headers: HTTPHeaders, body: String) async
        -> (HTTPResponseStatus, [(String, String)], String)
    {
        if method == .POST && path == "/token" {
            try? await Task.sleep(for: .milliseconds(200))
            var form: [String: String] = [:]
            for pair in body.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map {
                    $0.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
                }
                if parts.count == 2 { form[parts[0]] = parts[1] }
            }
            return tokens.withLock { tokens in
                tokens.refreshCalls += 1
                guard form["grant_type"] == "refresh_token", form["refresh_token"] == tokens.refresh else {
                    return (.badRequest, [("Content-Type", "application/json")], #"{"error":"invalid_grant"}"#)
                }
                tokens.issued += 1
                tokens.access = "access-\(tokens.issued)"
                tokens.refresh = "refresh-\(tokens.issued)"
                let json = #"{"access_token":"\#(tokens.access)","token_type":"Bearer","expires_in":3600,"refresh_token":"\#(tokens.refresh)"}"#
                return (.ok, [("Content-Type", "application/json"), ("Cache-Control", "no-store")], json)
            }
        }
        if path.hasPrefix("/api/") {
            let current = tokens.withLock { $0.access }
            if headers["Authorization"].first == "Bearer \(current)" {
                return (.ok, [("Content-Type", "application/json")], #"{"path":"\#(path)"}"#)
            }
            return (.unauthorized, [("WWW-Authenticate", #"Bearer realm="api", error="invalid_token""#)], "")
        }
        return (.notFound, [], "")
    }
}

/// Collects a request, asks the server for the answer, writes it.
private final class TokenServerHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let server: TokenServer
    private var head: HTTPRequestHead?
    private var body = ""

    init(server: TokenServer) { self.server = server }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = ""
        case .body(let buffer):
            body += String(buffer: buffer)
        case .end:
            guard let head else { return }
            let (server, body) = (self.server, self.body)
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            let eventLoop = context.eventLoop
            Task { @Sendable in
                let (status, fields, text) = await server.answer(
                    method: head.method, path: head.uri, headers: head.headers, body: body)
                eventLoop.execute {
                    var headers = HTTPHeaders(fields)
                    headers.add(name: "Content-Length", value: String(text.utf8.count))
                    let context = bound.value
                    context.write(NIOAny(HTTPServerResponsePart.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
                    context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: text)))), promise: nil)
                    context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)), promise: nil)
                }
            }
        }
    }
}
