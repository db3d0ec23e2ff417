import NIOCore

/// Maps a request to the script of its response, and applies the behaviour every route shares
/// (the `X-Test-Delay-Ms` header; `X-Test-Status` and `X-Test-Response-Header` are applied when
/// heads are built, by ``ReceivedRequest/finalize(_:)``).
enum Router {
    /// Bodies up to this size are kept in memory for echoing; larger ones are only counted.
    static let echoCollectLimit = 16 << 20

    /// How much of a request body to keep in memory for the route at `path`.
    static func collectLimit(forPath path: String) -> Int {
        if path == "/upload" || path.hasPrefix("/upload/") || path.hasPrefix("/fault/") {
            return 0
        }
        return echoCollectLimit
    }

    /// The response script for a fully received request.
    static func respond(
        to request: ReceivedRequest, state: ServerState, allocator: ByteBufferAllocator
    ) -> ResponseScript {
        if !request.complaints.all.isEmpty {
            return badRequest(request, request.complaints.all.joined(separator: "; "), allocator)
        }
        let script = route(request, state: state, allocator: allocator)
        if let text = request.header("X-Test-Delay-Ms"),
            let delay = Int64(text.trimmingCharacters(in: .whitespaces)), delay > 0
        {
            script.delayStart(by: .milliseconds(delay))
        }
        // Reading the request may have found more (a field on several lines, a bad form body).
        let complaints = request.complaints.all
        guard complaints.isEmpty else {
            return badRequest(request, complaints.joined(separator: "; "), allocator)
        }
        return script
    }

    private static func route(
        _ request: ReceivedRequest, state: ServerState, allocator: ByteBufferAllocator
    ) -> ResponseScript {
        let segments = request.pathSegments
        guard let first = segments.first else {
            return Reply.text(request, "Curlew test server\n", allocator: allocator)
        }
        switch first {
        case "anything", "echo":
            return EchoRoutes.echo(request, allocator: allocator)
        case "get":
            return onlyMethods(["GET", "HEAD"], request, allocator) { EchoRoutes.echo(request, allocator: allocator) }
        case "post", "put", "patch", "delete":
            return onlyMethods([first.uppercased()], request, allocator) {
                EchoRoutes.echo(request, allocator: allocator)
            }
        case "delay":
            guard segments.count == 2, let milliseconds = Int64(segments[1]), milliseconds >= 0 else {
                return badRequest(request, "expected /delay/{milliseconds}", allocator)
            }
            let script = EchoRoutes.echo(request, allocator: allocator)
            script.delayStart(by: .milliseconds(milliseconds))
            return script
        case "status":
            return EchoRoutes.status(request, segments: segments, allocator: allocator)
        case "gzip", "deflate", "brotli":
            return EchoRoutes.compressedEcho(request, encoding: first, allocator: allocator)
        case "coded":
            return CodedBodyRoutes.coded(request, allocator: allocator)
        case "response-headers":
            return EchoRoutes.responseHeaders(request, allocator: allocator)
        case "basic-auth":
            return AccessRoutes.basicAuth(request, segments: segments, allocator: allocator)
        case "digest-auth":
            return DigestAuthRoutes.respond(request, segments: segments, state: state, allocator: allocator)
        case "bearer":
            return AccessRoutes.bearer(request, allocator: allocator)
        case "flaky":
            return AccessRoutes.flaky(request, segments: segments, state: state, allocator: allocator)
        case "cookies":
            return AccessRoutes.cookies(request, segments: segments, allocator: allocator)
        case "upload":
            return EchoRoutes.upload(request, allocator: allocator)
        case "content-type", "charset", "xml":
            return EchoRoutes.content(request, segments: segments, allocator: allocator)
        case "bytes", "stream-bytes", "drip", "gzip-bomb", "json-lines", "xml-records", "sse", "downloads":
            return StreamingRoutes.respond(request, segments: segments, allocator: allocator)
        case "redirect", "relative-redirect", "absolute-redirect", "redirect-to", "redirect-loop":
            return RedirectRoutes.respond(request, segments: segments, allocator: allocator)
        case "fault":
            return FaultRoutes.respond(request, segments: segments, allocator: allocator)
        case "cache":
            return CacheRoutes.respond(request, state: state, allocator: allocator)
        case "resumable":
            return ResumeRoutes.respond(request, allocator: allocator)
        case "dns-query":
            return DNSOverHTTPSRoutes.respond(request, zone: state.dnsZone, allocator: allocator)
        default:
            return Reply.json(
                request, status: 404, ["error": "no route for \(request.path)"], allocator: allocator)
        }
    }

    /// Runs `makeScript` when the method is allowed, else answers 405 with an Allow field.
    private static func onlyMethods(
        _ allowed: [String],
        _ request: ReceivedRequest,
        _ allocator: ByteBufferAllocator,
        _ makeScript: () -> ResponseScript
    ) -> ResponseScript {
        guard allowed.contains(request.method) else {
            return Reply.json(
                request, status: 405, ["error": "method \(request.method) not allowed"],
                headers: [("Allow", allowed.joined(separator: ", "))], allocator: allocator)
        }
        return makeScript()
    }

    /// A 400 response explaining what was expected.
    static func badRequest(
        _ request: ReceivedRequest, _ message: String, _ allocator: ByteBufferAllocator
    ) -> ResponseScript {
        Reply.json(request, status: 400, ["error": message], allocator: allocator)
    }
}
