import NIOCore

/// `/resumable?…`: a deterministic body (the `/bytes` pattern with seed `seed`) that can be
/// fetched in ranges, for resumed downloads.
///
/// - `length=N` (default 100000) bytes; `seed=S` (default 0) picks the version: the `ETag` is
///   `"v<S>"` (with `validator=last-modified`, a `Last-Modified` date instead; `none`, neither).
/// - `Range: bytes=X-` is honoured with a `206` (`Content-Range: bytes X-(N-1)/N`) when
///   `If-Range` is absent or names this version, else the whole body comes with a `200`;
///   `X >= N` gets a `416` with `Content-Range: bytes */N`. `ranges=0` ignores `Range`.
/// - `drop=K`: a `200` sends K bytes of its body, then closes; `dropRange=K` does so for a `206`.
/// - `stall=K`: a `200` sends K bytes of its body, then goes silent (for cancelling mid-body).
/// - `badStart=1` answers a range with a `Content-Range` starting one byte later; `badTotal=1`
///   with a total one byte larger.
enum ResumeRoutes {
    static let lastModified = "Tue, 15 Nov 1994 08:12:31 GMT"

    static func respond(_ request: ReceivedRequest, allocator: ByteBufferAllocator) -> ResponseScript {
        let length = max(1, request.queryInt("length", default: 100_000))
        let seed = request.queryUInt64("seed", default: 0)
        var validatorField: (String, String)?
        switch request.queryValue("validator") ?? "etag" {
        case "none": validatorField = nil
        case "last-modified": validatorField = ("Last-Modified", lastModified)
        default: validatorField = ("ETag", "\"v\(seed)\"")
        }
        var headers = [("Content-Type", "application/octet-stream"), ("Accept-Ranges", "bytes")]
        if let validatorField { headers.append(validatorField) }

        if request.queryValue("ranges") != "0", let start = rangeStart(request.header("Range")),
            request.header("If-Range").map({ $0 == validatorField?.1 }) ?? true
        {
            if start >= length {
                headers.append(("Content-Range", "bytes */\(length)"))
                return script(request, status: 416, headers: headers, from: 0, count: 0, drop: nil, allocator: allocator)
            }
            let shownStart = request.queryValue("badStart") == "1" ? start + 1 : start
            let shownTotal = request.queryValue("badTotal") == "1" ? length + 1 : length
            headers.append(("Content-Range", "bytes \(shownStart)-\(length - 1)/\(shownTotal)"))
            return script(
                request, status: 206, headers: headers, from: start, count: length - start, seed: seed,
                drop: request.queryValue("dropRange").flatMap { Int($0) }, allocator: allocator)
        }
        if let stall = request.queryValue("stall").flatMap({ Int($0) }) {
            let head = request.finalize(ResponseHead(status: 200, headers: headers + [("Content-Length", String(length))]))
            let body = BytePattern.pieces(at: 0, count: min(stall, length - 1), seed: seed).map { ResponseStep.body($0) }
            return ResponseScript([.head(head.serialized(allocator: allocator))] + body + [.stall])
        }
        return script(
            request, status: 200, headers: headers, from: 0, count: length, seed: seed,
            drop: request.queryValue("drop").flatMap { Int($0) }, allocator: allocator)
    }

    /// X of `bytes=X-`.
    private static func rangeStart(_ value: String?) -> Int? {
        guard let value, value.hasPrefix("bytes="), value.hasSuffix("-") else { return nil }
        return Int(value.dropFirst(6).dropLast())
    }

    private static func script(
        _ request: ReceivedRequest, status: Int, headers: [(String, String)], from start: Int, count: Int,
        seed: UInt64 = 0, drop: Int?, allocator: ByteBufferAllocator
    ) -> ResponseScript {
        let head = request.finalize(ResponseHead(status: status, headers: headers + [("Content-Length", String(count))]))
        let sent = drop.map { min($0, count) } ?? count
        let body = BytePattern.pieces(at: UInt64(start), count: sent, seed: seed).map { ResponseStep.body($0) }
        return ResponseScript([.head(head.serialized(allocator: allocator))] + body + [drop == nil ? .end : .close])
    }
}
