import NIOCore

/// Routes that misbehave on purpose, under `/fault/…`:
///
/// - `close-mid-body?length=N&send=M`: Content-Length N, M < N body bytes, then close.
/// - `never-answer`: reads the request and never responds.
/// - `slow-drip?interval=ms&bytes=N`: Content-Length N, one byte every `interval`.
/// - `stall-after-head?length=N&send=M&status=S`: head (status S, default 200) and M bytes, then silence.
/// - `malformed-head`: garbage instead of a status line, then close.
/// - `huge-headers?size=N&single=1`: headers totalling about N bytes.
/// - `bad-content-length`: `Content-Length: abc`.
/// - `bad-gzip`: claims gzip, sends garbage.
/// - `close-without-response`: reads the request and closes the connection (an empty reply).
/// - `reset-without-response`: reads the request and resets the connection.
/// - `reset-after-head?length=N&send=M`: head and M bytes, then an abortive close (TCP RST).
/// - `bad-chunk-size`: a chunked body whose first chunk size is not hexadecimal.
/// - `slow-head?interval=ms&lines=N`: the status line, then N header lines one every
///   `interval`, then the end of the head and a 2-byte body.
/// - `trickle-head?interval=ms&headers=N`: the status line (with `headers=N`, it and N header
///   lines whole first, then one more header line) one byte every `interval`, then the rest of
///   the head and a 2-byte body: bytes keep moving, but no line completes for a long while.
enum FaultRoutes {
    static func respond(
        _ request: ReceivedRequest, segments: [String], allocator: ByteBufferAllocator
    ) -> ResponseScript {
        guard segments.count == 2 else {
            return Router.badRequest(request, "expected /fault/{name}", allocator)
        }
        switch segments[1] {
        case "close-mid-body":
            return partialBody(request, defaultSend: { $0 / 2 }, then: .close, allocator: allocator)
        case "close-without-response":
            return ResponseScript([.close])
        case "reset-without-response":
            return ResponseScript([.reset])
        case "never-answer":
            return ResponseScript([.stall])
        case "slow-drip":
            let interval = Int64(request.queryInt("interval", default: 100))
            let total = request.queryInt("bytes", default: 10)
            var sent = 0
            return ResponseScript([.head(lengthHead(request, length: total, allocator: allocator))]) {
                guard sent < total else { return nil }
                defer { sent += 1 }
                return [.wait(.milliseconds(interval)), .body(BytePattern.slice(at: UInt64(sent), length: 1, seed: 0))]
            }
        case "stall-after-head":
            return partialBody(request, defaultSend: { min($0 / 2, 1024) }, then: .stall, allocator: allocator)
        case "reset-after-head":
            return partialBody(request, defaultSend: { min($0 / 2, 1024) }, then: .reset, allocator: allocator)
        case "malformed-head":
            return ResponseScript([
                .head(allocator.buffer(staticString: "HTCPCP/9 nope, I'm a teapot\r\nwhat even: is this\r\n\r\n")),
                .close,
            ])
        case "huge-headers":
            return hugeHeaders(request, allocator: allocator)
        case "bad-content-length":
            let head = ResponseHead(
                status: 200, headers: [("Content-Type", "text/plain"), ("Content-Length", "abc"), ("Connection", "close")])
            return ResponseScript([
                .head(head.serialized(allocator: allocator)), .body(allocator.buffer(string: "hello")), .close,
            ])
        case "bad-gzip":
            let garbage = allocator.buffer(string: "this is definitely not gzip data \u{1}\u{2}\u{3}")
            let head = request.finalize(
                ResponseHead(
                    status: 200,
                    headers: [
                        ("Content-Type", "application/json"), ("Content-Encoding", "gzip"),
                        ("Content-Length", String(garbage.readableBytes)),
                    ]))
            return ResponseScript([.head(head.serialized(allocator: allocator)), .body(garbage), .end])
        case "bad-chunk-size":
            let head = ResponseHead(status: 200, headers: [("Content-Type", "text/plain"), ("Transfer-Encoding", "chunked")])
            return ResponseScript([
                .head(head.serialized(allocator: allocator)), .body(allocator.buffer(string: "5\r\nhello\r\nzz\r\nbad\r\n0\r\n\r\n")),
                .close,
            ])
        case "slow-head":
            return slowHead(request, allocator: allocator)
        case "trickle-head":
            return trickleHead(request, allocator: allocator)
        default:
            return Reply.json(
                request, status: 404, ["error": "no fault called \(segments[1])"], allocator: allocator)
        }
    }

    /// A head announcing `?length=N` bytes (default 1000), then `?send=M` of them (M < N,
    /// default `defaultSend(N)`) from the `/bytes` pattern, then `terminal`.
    private static func partialBody(
        _ request: ReceivedRequest, defaultSend: (Int) -> Int, then terminal: ResponseStep,
        allocator: ByteBufferAllocator
    ) -> ResponseScript {
        let length = max(1, request.queryInt("length", default: 1000))
        let send = min(request.queryInt("send", default: defaultSend(length)), length - 1)
        let body = BytePattern.pieces(at: 0, count: send, seed: 0).map { ResponseStep.body($0) }
        return ResponseScript([.head(lengthHead(request, length: length, allocator: allocator))] + body + [terminal])
    }

    /// A head announcing `length` bytes of octet-stream, with status `?status=` (default 200).
    private static func lengthHead(
        _ request: ReceivedRequest, length: Int, allocator: ByteBufferAllocator
    ) -> ByteBuffer {
        request.finalize(
            ResponseHead(
                status: request.queryInt("status", default: 200),
                headers: [("Content-Type", "application/octet-stream"), ("Content-Length", String(length))])
        ).serialized(allocator: allocator)
    }

    /// Headers totalling about `size` bytes (default 1 MiB): many `X-Filler-i` fields of up to
    /// 1000 bytes, or with `single=1` one `X-Filler` field of that size. The body is `ok`.
    private static func hugeHeaders(_ request: ReceivedRequest, allocator: ByteBufferAllocator) -> ResponseScript {
        let size = min(request.queryInt("size", default: 1 << 20), 64 << 20)
        let single = request.queryValue("single") == "1" || request.queryValue("single") == "true"
        var head = ResponseHead(status: 200, headers: [("Content-Type", "text/plain"), ("Content-Length", "2")])
        if single {
            head.headers.append(("X-Filler", String(repeating: "a", count: max(0, size - 12))))
        } else {
            var total = 0
            var index = 0
            while total < size {
                let name = "X-Filler-\(index)"
                let valueLength = max(1, min(1000, size - total - name.utf8.count - 4))
                head.headers.append((name, String(repeating: "a", count: valueLength)))
                total += name.utf8.count + valueLength + 4
                index += 1
            }
        }
        let finalHead = request.finalize(head)
        return ResponseScript([.head(finalHead.serialized(allocator: allocator)), .body(allocator.buffer(string: "ok")), .end])
    }

    /// The head of `slow-head`, one header line at a time.
    private static func slowHead(_ request: ReceivedRequest, allocator: ByteBufferAllocator) -> ResponseScript {
        let interval = Int64(request.queryInt("interval", default: 100))
        let lines = request.queryInt("lines", default: 5)
        var steps: [ResponseStep] = [.head(allocator.buffer(string: "HTTP/1.1 200 OK\r\n"))]
        for index in 0..<max(0, lines) {
            steps += [.wait(.milliseconds(interval)), .head(allocator.buffer(string: "X-Drip-\(index): \(index)\r\n"))]
        }
        steps += [.head(allocator.buffer(string: "Content-Type: text/plain\r\nContent-Length: 2\r\n\r\nok")), .end]
        return ResponseScript(steps)
    }

    /// The head of `trickle-head`: the whole lines, then a line one byte at a time.
    private static func trickleHead(_ request: ReceivedRequest, allocator: ByteBufferAllocator) -> ResponseScript {
        let interval = Int64(request.queryInt("interval", default: 100))
        let headers = request.queryInt("headers", default: 0)
        let status = "HTTP/1.1 200 OK\r\n"
        var whole = ""
        var trickled = status
        if headers > 0 {
            whole = status + (0..<headers).map { "X-Whole-\($0): \($0)\r\n" }.joined()
            trickled = "X-Trickled: slowly\r\n"
        }
        var steps: [ResponseStep] = whole.isEmpty ? [] : [.head(allocator.buffer(string: whole))]
        for byte in trickled.utf8 {
            steps += [.wait(.milliseconds(interval)), .head(allocator.buffer(bytes: [byte]))]
        }
        steps += [.head(allocator.buffer(string: "Content-Type: text/plain\r\nContent-Length: 2\r\n\r\nok")), .end]
        return ResponseScript(steps)
    }
}
