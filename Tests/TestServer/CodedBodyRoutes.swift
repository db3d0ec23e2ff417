import Foundation
import NIOCore

/// `/coded?coding=C&size=N&cut=K&corrupt=after-header&trailing=TEXT&chunked=1`: a text body of
/// N bytes (default 64 KiB; line `i` is `line i of the coded body`, see ``plainBody(size:)``),
/// content-coded with C (`gzip`, `deflate` for a zlib stream, `raw-deflate`, `br`, `zstd`,
/// `identity`), then damaged on purpose while the HTTP message itself stays whole and valid:
/// - `cut=K` drops the last K coded bytes (a truncated coded stream);
/// - `corrupt=after-header` keeps the first 10 coded bytes (a valid gzip header) and replaces
///   the rest with garbage of the same length;
/// - `trailing=TEXT` appends TEXT after the complete coded stream.
///
/// Stacked codings, as servers that compress twice send them: `coding=gzip,br` applies gzip,
/// then br, and says `Content-Encoding: gzip, br` (`separate=1`: one field line per coding).
/// `inner-trailing=M` appends M zero bytes after the first coding's stream, before the next
/// coding is applied: bytes an inner decoder ignores, which only the outer one produces.
/// `fill=zeros` makes the body N zero bytes instead of text. `transfer=T` applies T (a list
/// like `coding`) after the content codings as transfer codings: `Transfer-Encoding: T,
/// chunked`, chunked whatever `chunked` says. A name starting with `x-` is named in the field but
/// leaves the bytes as they are: a coding no client knows.
///
/// The message is framed by a correct `Content-Length`, or sent chunked with `chunked=1`;
/// `length=L` then adds `Content-Length: L` beside `Transfer-Encoding` (a length the chunked
/// framing overrides, RFC 9112 §6.3).
public enum CodedBodyRoutes {
    static func coded(_ request: ReceivedRequest, allocator: ByteBufferAllocator) -> ResponseScript {
        let codings = list(request.queryValue("coding") ?? "gzip")
        let transferCodings = list(request.queryValue("transfer") ?? "")
        let size = min(request.queryInt("size", default: 64 << 10), 64 << 20)
        let plain = request.queryValue("fill") == "zeros" ? Data(count: size) : plainBody(size: size)
        let innerTrailing = min(request.queryInt("inner-trailing", default: 0), 64 << 20)
        guard var coded = encode(plain, codings: codings, innerTrailing: innerTrailing),
            let transferCoded = encode(coded, codings: transferCodings, innerTrailing: 0)
        else {
            return Reply.json(request, status: 400, ["error": "cannot encode with \(codings + transferCodings)"], allocator: allocator)
        }
        coded = transferCoded
        let cut = min(request.queryInt("cut", default: 0), coded.count)
        coded.removeLast(cut)
        if request.queryValue("corrupt") == "after-header", coded.count > 10 {
            let garbage = (10..<coded.count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            coded.replaceSubrange(10..., with: garbage)
        }
        if let trailing = request.queryValue("trailing") { coded.append(contentsOf: Data(trailing.utf8)) }
        let names = codings.map { $0 == "raw-deflate" ? "deflate" : $0 }
        var headers = [("Content-Type", "text/plain")]
        if request.queryValue("separate") == "1" {
            headers += names.map { ("Content-Encoding", $0) }
        } else if !names.isEmpty {
            headers.append(("Content-Encoding", names.joined(separator: ", ")))
        }
        if request.queryValue("chunked") == "1" || !transferCodings.isEmpty {
            let transfer = transferCodings.map { $0 == "raw-deflate" ? "deflate" : $0 } + ["chunked"]
            headers.append(("Transfer-Encoding", transfer.joined(separator: ", ")))
            if let length = request.queryValue("length") { headers.append(("Content-Length", length)) }
            let head = request.finalize(ResponseHead(status: 200, headers: headers)).serialized(allocator: allocator)
            var body = allocator.buffer(capacity: coded.count + 32)
            body.writeString(String(coded.count, radix: 16) + "\r\n")
            body.writeBytes(coded)
            body.writeString("\r\n0\r\n\r\n")
            return ResponseScript([.head(head), .body(body), .end])
        }
        return Reply.fixed(request, headers: headers, body: allocator.buffer(bytes: coded), allocator: allocator)
    }

    private static func list(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// `plain` with each coding applied in order; `innerTrailing` zero bytes follow the first
    /// coding's stream.
    private static func encode(_ plain: Data, codings: [String], innerTrailing: Int) -> Data? {
        var data = plain
        for (index, coding) in codings.enumerated() {
            guard let coded = encode(data, coding: coding) else { return nil }
            data = coded
            if index == 0 && innerTrailing > 0 { data.append(Data(count: innerTrailing)) }
        }
        return data
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
        case "identity": return plain
        case let name where name.hasPrefix("x-"): return plain
        default: return nil
        }
    }
}
