import Foundation
import NIOCore

/// `/resumable?…`: a deterministic body (the `/bytes` pattern with seed `seed`) that can be
/// fetched in ranges, for resumed downloads.
///
/// - `length=N` (default 100000) bytes; `seed=S` (default 0) picks the version: the `ETag` is
///   `"v<S>"`. `validator=weak` makes it `W/"v<S>"`; `validator=last-modified` sends a
///   `Last-Modified` date a day before its `Date` instead (a strong validator),
///   `validator=recent-last-modified` one equal to its `Date` (a weak one); `none`, neither.
/// - `Range: bytes=X-` is honoured with a `206` (`Content-Range: bytes X-(N-1)/N`) when
///   `If-Range` is absent or names this version, else the whole body comes with a `200`;
///   `X >= N` gets a `416` with `Content-Range: bytes */N`. `ranges=0` ignores `Range`.
/// - `drop=K`: a `200` sends K bytes of its body, then closes; `dropRange=K` does so for a `206`.
/// - `stall=K`: a `200` sends K bytes of its body, then goes silent (for cancelling mid-body).
/// - `gzip=1`: a `200`'s body is gzip-coded (`Content-Encoding: gzip`); `drop` counts coded bytes.
/// - `badStart=1` answers a range with a `Content-Range` starting one byte later; `badTotal=1`
///   with a total one byte larger.
///
/// Hostile on purpose, for resumed downloads:
/// - `ignoreIfRange=1` answers a range with a `206` whatever `If-Range` says (so a changed
///   version's bytes, under its own `ETag`, answer a range of the old one);
/// - `longBody=K` sends K bytes more than its `Content-Range` says, with a `Content-Length`
///   that counts them;
/// - `shortRange=K` answers `bytes=X-` with only K bytes, `bytes X-(X+K-1)/N`;
/// - `unsatisfiable=T` answers any range with a `416` and `Content-Range: bytes */T`.
///
/// Credentials, checked on every request (a `401` with a Basic challenge otherwise): `authCRC=C`
/// wants an `Authorization` field whose CRC-32 is C, `keyCRC=C` an `X-Api-Key`, `cookieCRC=C` a
/// `Cookie` — checksums, so that the URL (which resume data keeps) never holds the secret.
enum ResumeRoutes {
    static let lastModified = "Tue, 15 Nov 1994 08:12:31 GMT"
    /// The `Date` sent with ``lastModified``: a day later, so that the date is a strong validator.
    static let date = "Wed, 16 Nov 1994 08:12:31 GMT"

    static func respond(_ request: ReceivedRequest, allocator: ByteBufferAllocator) -> ResponseScript {
        let length = max(1, request.queryInt("length", default: 100_000))
        let seed = request.queryUInt64("seed", default: 0)
        var validatorField: (String, String)?
        var headers = [("Content-Type", "application/octet-stream"), ("Accept-Ranges", "bytes")]
        switch request.queryValue("validator") ?? "etag" {
        case "none": validatorField = nil
        case "weak": validatorField = ("ETag", "W/\"v\(seed)\"")
        case "last-modified":
            validatorField = ("Last-Modified", lastModified)
            headers.append(("Date", date))
        case "recent-last-modified":
            validatorField = ("Last-Modified", lastModified)
            headers.append(("Date", lastModified))
        default: validatorField = ("ETag", "\"v\(seed)\"")
        }
        if let validatorField { headers.append(validatorField) }
        if let refusal = refusal(request, allocator: allocator) { return refusal }

        let ignoresIfRange = request.queryValue("ignoreIfRange") == "1"
        if request.queryValue("ranges") != "0", let start = rangeStart(request.header("Range")),
            ignoresIfRange || request.header("If-Range").map({ $0 == validatorField?.1 }) ?? true
        {
            if let shownTotal = request.queryValue("unsatisfiable") {
                headers.append(("Content-Range", "bytes */\(shownTotal)"))
                return script(request, status: 416, headers: headers, from: 0, count: 0, drop: nil, allocator: allocator)
            }
            if start >= length {
                headers.append(("Content-Range", "bytes */\(length)"))
                return script(request, status: 416, headers: headers, from: 0, count: 0, drop: nil, allocator: allocator)
            }
            let shownStart = request.queryValue("badStart") == "1" ? start + 1 : start
            let shownTotal = request.queryValue("badTotal") == "1" ? length + 1 : length
            let count = request.queryValue("shortRange").flatMap { Int($0) }.map { min($0, length - start) } ?? length - start
            headers.append(("Content-Range", "bytes \(shownStart)-\(start + count - 1)/\(shownTotal)"))
            let extra = request.queryValue("longBody").flatMap { Int($0) } ?? 0
            return script(
                request, status: 206, headers: headers, from: start, count: count + extra, seed: seed,
                drop: request.queryValue("dropRange").flatMap { Int($0) }, allocator: allocator)
        }
        if let stall = request.queryValue("stall").flatMap({ Int($0) }) {
            let head = request.finalize(ResponseHead(status: 200, headers: headers + [("Content-Length", String(length))]))
            let body = BytePattern.pieces(at: 0, count: min(stall, length - 1), seed: seed).map { ResponseStep.body($0) }
            return ResponseScript([.head(head.serialized(allocator: allocator))] + body + [.stall])
        }
        if request.queryValue("gzip") == "1" {
            return gzipped(request, headers: headers, length: length, seed: seed, allocator: allocator)
        }
        return script(
            request, status: 200, headers: headers, from: 0, count: length, seed: seed,
            drop: request.queryValue("drop").flatMap { Int($0) }, allocator: allocator)
    }

    /// The whole body gzip-coded (`gzip=1`), `drop=K` counting coded bytes.
    private static func gzipped(
        _ request: ReceivedRequest, headers: [(String, String)], length: Int, seed: UInt64, allocator: ByteBufferAllocator
    ) -> ResponseScript {
        let coded = Compression.deflate(Data(TestServer.expectedBytes(count: length, seed: seed)), format: .gzip) ?? Data()
        let drop = request.queryValue("drop").flatMap { Int($0) }
        let fields = headers + [("Content-Encoding", "gzip"), ("Content-Length", String(coded.count))]
        let head = request.finalize(ResponseHead(status: 200, headers: fields))
        let sent = coded.prefix(drop.map { min($0, coded.count) } ?? coded.count)
        return ResponseScript([
            .head(head.serialized(allocator: allocator)), .body(allocator.buffer(bytes: sent)), drop == nil ? .end : .close,
        ])
    }

    /// A `401` when a credential the query asks for (by its CRC-32) is missing or another.
    private static func refusal(_ request: ReceivedRequest, allocator: ByteBufferAllocator) -> ResponseScript? {
        let wanted = [("authCRC", "Authorization"), ("keyCRC", "X-Api-Key"), ("cookieCRC", "Cookie")]
        for (parameter, field) in wanted {
            guard let expected = request.queryValue(parameter) else { continue }
            let sent = request.header(field).map { String(TestServer.crc32(of: Data($0.utf8))) }
            if sent != expected {
                return script(
                    request, status: 401, headers: [("WWW-Authenticate", "Basic realm=\"resume\"")], from: 0, count: 0,
                    drop: nil, allocator: allocator)
            }
        }
        return nil
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
