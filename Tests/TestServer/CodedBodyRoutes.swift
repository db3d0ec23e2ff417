import Foundation
import NIOCore

/// `/coded?coding=C&size=N&cut=K&corrupt=after-header&trailing=TEXT&chunked=1`: a text body of
/// N bytes (default 64 KiB; line `i` is `line i of the coded body`, see ``plainBody(size:)``),
/// content-coded with C (`gzip`, `deflate` for a zlib stream, `raw-deflate`, `br`, `zstd`),
/// then damaged on purpose while the HTTP message itself stays whole and valid:
/// - `cut=K` drops the last K coded bytes (a truncated coded stream);
/// - `corrupt=after-header` keeps the first 10 coded bytes (a valid gzip header) and replaces
///   the rest with garbage of the same length;
/// - `trailing=TEXT` appends TEXT after the complete coded stream.
///
/// The message is framed by a correct `Content-Length`, or sent chunked with `chunked=1`.
public enum CodedBodyRoutes {
    static func coded(_ request: ReceivedRequest, allocator: ByteBufferAllocator) -> ResponseScript {
        let coding = request.queryValue("coding") ?? "gzip"
        let plain = plainBody(size: min(request.queryInt("size", default: 64 << 10), 64 << 20))
        guard var coded = encode(plain, coding: coding) else {
            return Reply.json(request, status: 400, ["error": "cannot encode with \(coding)"], allocator: allocator)
        }
        let cut = min(request.queryInt("cut", default: 0), coded.count)
        coded.removeLast(cut)
        if request.queryValue("corrupt") == "after-header", coded.count > 10 {
            let garbage = (10..<coded.count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            coded.replaceSubrange(10..., with: garbage)
        }
        if let trailing = request.queryValue("trailing") { coded.append(contentsOf: Data(trailing.utf8)) }
        let headerCoding = coding == "raw-deflate" ? "deflate" : coding
        var headers = [("Content-Type", "text/plain"), ("Content-Encoding", headerCoding)]
        if request.queryValue("chunked") == "1" {
            headers.append(("Transfer-Encoding", "chunked"))
            let head = request.finalize(ResponseHead(status: 200, headers: headers)).serialized(allocator: allocator)
            var body = allocator.buffer(capacity: coded.count + 32)
            body.writeString(String(coded.count, radix: 16) + "\r\n")
            body.writeBytes(coded)
            body.writeString("\r\n0\r\n\r\n")
            return ResponseScript([.head(head), .body(body), .end])
        }
        return Reply.fixed(request, headers: headers, body: allocator.buffer(bytes: coded), allocator: allocator)
    }

    /// The plain text `/coded` encodes: numbered lines, cut to `size` bytes.
    public static func plainBody(size: Int) -> Data {
        var text = Data()
        text.reserveCapacity(size + 40)
        var line = 0
        while text.count < size {
            text.append(contentsOf: Data("line \(line) of the coded body\n".utf8))
            line += 1
        }
        return text.prefix(size)
    }

    private static func encode(_ plain: Data, coding: String) -> Data? {
        switch coding {
        case "gzip": return Compression.deflate(plain, format: .gzip)
        case "deflate": return Compression.deflate(plain, format: .zlib)
        case "raw-deflate": return Compression.deflate(plain, format: .raw)
        case "br": return Compression.brotli(plain, quality: 4)
        case "zstd": return Compression.zstd(plain)
        default: return nil
        }
    }
}
