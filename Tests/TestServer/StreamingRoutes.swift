import Foundation
import NIOCore

/// Routes whose bodies are produced piece by piece, never held whole in memory:
/// `/bytes`, `/stream-bytes`, `/drip`, `/gzip-bomb`, `/json-lines`, `/xml-records`, `/sse`.
enum StreamingRoutes {
    /// Size of the pieces `/bytes` and `/gzip-bomb` produce.
    static let pieceSize = 64 * 1024

    static func respond(
        _ request: ReceivedRequest, segments: [String], allocator: ByteBufferAllocator
    ) -> ResponseScript {
        switch segments[0] {
        case "bytes":
            return bytes(request, segments: segments, chunked: false, allocator: allocator)
        case "downloads":
            // The OpenAPI test API's `GET /downloads?size=N` (the same pattern as its own server's),
            // for measuring a generated client's memory without an in-process Hummingbird server,
            // which holds tens of MiB of a fast body in its own buffers.
            return bytes(request, segments: ["bytes", String(max(0, request.queryInt("size", default: 0)))], chunked: false, allocator: allocator)
        case "stream-bytes":
            return bytes(request, segments: segments, chunked: true, allocator: allocator)
        case "drip":
            return drip(request, allocator: allocator)
        case "gzip-bomb":
            return gzipBomb(request, allocator: allocator)
        case "json-lines":
            return jsonLines(request, allocator: allocator)
        case "xml-records":
            return xmlRecords(request, allocator: allocator)
        default:
            return serverSentEvents(request, allocator: allocator)
        }
    }

    /// `/bytes/{n}?seed=S` (Content-Length) and `/stream-bytes/{n}?chunk=K&seed=S` (chunked).
    private static func bytes(
        _ request: ReceivedRequest, segments: [String], chunked: Bool, allocator: ByteBufferAllocator
    ) -> ResponseScript {
        guard segments.count == 2, let total = UInt64(segments[1]) else {
            return Router.badRequest(request, "expected /\(segments[0])/{byteCount}", allocator)
        }
        let seed = request.queryUInt64("seed", default: 0)
        var position: UInt64 = 0
        let headers = [("Content-Type", "application/octet-stream")]
        if chunked {
            let chunkSize = max(1, min(request.queryInt("chunk", default: 16 * 1024), BytePattern.maxSliceLength))
            return Reply.chunked(request, headers: headers, allocator: allocator) {
                guard position < total else { return nil }
                let length = Int(min(UInt64(chunkSize), total - position))
                defer { position += UInt64(length) }
                return [.body(BytePattern.slice(at: position, length: length, seed: seed))]
            }
        }
        let head = request.finalize(ResponseHead(status: 200, headers: headers + [("Content-Length", String(total))]))
        return ResponseScript([.head(head.serialized(allocator: allocator))]) {
            guard position < total else { return nil }
            let length = Int(min(UInt64(pieceSize), total - position))
            defer { position += UInt64(length) }
            return [.body(BytePattern.slice(at: position, length: length, seed: seed))]
        }
    }

    /// `/drip?bytes=N&duration=ms&delay=ms&chunks=C`: waits `delay`, sends the head with
    /// Content-Length N, then C chunks of `*`, each after a pause of `duration / C`.
    private static func drip(_ request: ReceivedRequest, allocator: ByteBufferAllocator) -> ResponseScript {
        let total = request.queryInt("bytes", default: 10)
        let duration = request.queryInt("duration", default: 2000)
        let delay = request.queryInt("delay", default: 0)
        let chunks = max(1, min(request.queryInt("chunks", default: max(1, min(total, 10))), max(total, 1)))
        let pause = TimeAmount.milliseconds(Int64(duration / chunks))
        let head = request.finalize(
            ResponseHead(
                status: 200,
                headers: [("Content-Type", "application/octet-stream"), ("Content-Length", String(total))]))
        var steps: [ResponseStep] = []
        if delay > 0 {
            steps.append(.wait(.milliseconds(Int64(delay))))
        }
        steps.append(.head(head.serialized(allocator: allocator)))
        var sentChunks = 0
        return ResponseScript(steps) {
            guard sentChunks < chunks, total > 0 else { return nil }
            // Spread the remainder over the first chunks so the sizes add up to `total`.
            let size = total / chunks + (sentChunks < total % chunks ? 1 : 0)
            sentChunks += 1
            return [.wait(pause)] + filler(count: size, allocator: allocator).map { .body($0) }
        }
    }

    /// `/gzip-bomb?size=N`: a chunked gzip body that inflates to N zero bytes (default 100 MiB).
    /// Zeros are compressed a piece at a time, so memory stays small whatever N is.
    private static func gzipBomb(_ request: ReceivedRequest, allocator: ByteBufferAllocator) -> ResponseScript {
        let total = request.queryUInt64("size", default: 100 << 20)
        guard let stream = DeflateStream(format: .gzip, level: 6) else {
            return Reply.json(request, status: 500, ["error": "zlib failed to start"], allocator: allocator)
        }
        let zeros = [UInt8](repeating: 0, count: pieceSize)
        var consumed: UInt64 = 0
        var finished = false
        let headers = [("Content-Type", "application/octet-stream"), ("Content-Encoding", "gzip")]
        return Reply.chunked(request, headers: headers, allocator: allocator) {
            guard !finished else { return nil }
            var output = allocator.buffer(capacity: 16 * 1024)
            // Feed zeros until zlib emits something worth sending, or the input is used up.
            while output.readableBytes < 8 * 1024 && !finished {
                let length = Int(min(UInt64(pieceSize), total - consumed))
                consumed += UInt64(length)
                let last = consumed >= total
                let ok = zeros.withUnsafeBytes { raw in
                    stream.compress(UnsafeRawBufferPointer(rebasing: raw.prefix(length)), finish: last, into: &output)
                }
                if !ok || last {
                    finished = true
                }
            }
            return [.body(output)]
        }
    }

    /// `/json-lines?count=N&delay=ms&batch=K&split=1`: NDJSON lines `{"id":i,"name":"item-i"}`,
    /// K lines per chunk (default 1), optionally pausing between chunks; with `split=1` every
    /// chunk is cut in two mid-line to exercise framing across chunk boundaries.
    private static func jsonLines(_ request: ReceivedRequest, allocator: ByteBufferAllocator) -> ResponseScript {
        let count = request.queryInt("count", default: 10)
        let delay = request.queryInt("delay", default: 0)
        let batch = max(1, request.queryInt("batch", default: 1))
        let split = request.queryValue("split") == "1" || request.queryValue("split") == "true"
        var nextID = 0
        let headers = [("Content-Type", "application/x-ndjson")]
        return Reply.chunked(request, headers: headers, allocator: allocator) {
            guard nextID < count else { return nil }
            var text = ""
            let end = min(count, nextID + batch)
            while nextID < end {
                text += "{\"id\":\(nextID),\"name\":\"item-\(nextID)\"}\n"
                nextID += 1
            }
            var steps: [ResponseStep] = []
            if delay > 0 && end > batch {
                steps.append(.wait(.milliseconds(Int64(delay))))
            }
            var buffer = allocator.buffer(string: text)
            if split, buffer.readableBytes > 1, let first = buffer.readSlice(length: buffer.readableBytes / 2) {
                steps.append(.body(first))
            }
            steps.append(.body(buffer))
            return steps
        }
    }

    /// `/xml-records?count=N&batch=K`: `<items><item id="i"><name>item-i</name></item>…</items>`,
    /// K records per chunk (default 64), each chunk cut in two mid-record.
    private static func xmlRecords(_ request: ReceivedRequest, allocator: ByteBufferAllocator) -> ResponseScript {
        let count = request.queryInt("count", default: 10)
        let batch = max(1, request.queryInt("batch", default: 64))
        var nextID = -1
        let headers = [("Content-Type", "application/xml; charset=utf-8")]
        return Reply.chunked(request, headers: headers, allocator: allocator) {
            if nextID < 0 {
                nextID = 0
                return [.body(allocator.buffer(string: "<?xml version=\"1.0\"?>\n<items>"))]
            }
            guard nextID <= count else { return nil }
            if nextID == count {
                nextID += 1
                return [.body(allocator.buffer(string: "</items>\n"))]
            }
            var text = ""
            let end = min(count, nextID + batch)
            while nextID < end {
                text += "<item id=\"\(nextID)\"><name>item-\(nextID)</name></item>"
                nextID += 1
            }
            var buffer = allocator.buffer(string: text)
            var steps: [ResponseStep] = []
            if buffer.readableBytes > 1, let first = buffer.readSlice(length: buffer.readableBytes / 2) {
                steps.append(.body(first))
            }
            steps.append(.body(buffer))
            return steps
        }
    }

    /// `/sse?count=N&delay=ms`: `text/event-stream`. Starts with a comment line and a `retry:`
    /// field, then N events, each with `id: i`, `event: tick`, and two `data:` lines
    /// (`event i` and `{"id":i}`), one event per chunk.
    private static func serverSentEvents(
        _ request: ReceivedRequest, allocator: ByteBufferAllocator
    ) -> ResponseScript {
        let count = request.queryInt("count", default: 3)
        let delay = request.queryInt("delay", default: 0)
        var nextID = -1
        let headers = [("Content-Type", "text/event-stream; charset=utf-8"), ("Cache-Control", "no-cache")]
        return Reply.chunked(request, headers: headers, allocator: allocator) {
            defer { nextID += 1 }
            if nextID < 0 {
                return [.body(allocator.buffer(string: ": test stream\nretry: 1000\n\n"))]
            }
            guard nextID < count else { return nil }
            let event = "id: \(nextID)\nevent: tick\ndata: event \(nextID)\ndata: {\"id\":\(nextID)}\n\n"
            var steps: [ResponseStep] = []
            if delay > 0 && nextID > 0 {
                steps.append(.wait(.milliseconds(Int64(delay))))
            }
            steps.append(.body(allocator.buffer(string: event)))
            return steps
        }
    }

    /// `count` bytes of `*`, as slices of at most ``pieceSize`` of one shared buffer.
    static func filler(count: Int, allocator: ByteBufferAllocator) -> [ByteBuffer] {
        var pieces: [ByteBuffer] = []
        var remaining = count
        while remaining > 0 {
            let length = min(remaining, pieceSize)
            pieces.append(stars.getSlice(at: stars.readerIndex, length: length) ?? ByteBuffer())
            remaining -= length
        }
        return pieces
    }

    private static let stars = ByteBufferAllocator().buffer(bytes: [UInt8](repeating: UInt8(ascii: "*"), count: pieceSize))
}
