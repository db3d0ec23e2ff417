import Foundation
import NIOCore

/// Routes that describe the request back to the client, or answer with fixed content:
/// `/anything`, `/get` …, `/status`, `/gzip` …, `/response-headers`, `/upload`,
/// `/content-type`, `/charset/latin1`, `/xml`.
enum EchoRoutes {
    /// The echo JSON for `request`: method, url, path, args, headers, body, json, form, files,
    /// and what arrived as it arrived: `rawTarget`, `headerLines` (`[[name, value]]` in order,
    /// repeated lines apart), `queryPairs` and `formPairs` (`[[name, value]]` in order,
    /// duplicates kept). `args`, `headers` and `form` are conveniences that group or join.
    static func echoObject(_ request: ReceivedRequest) -> [String: Any] {
        var object: [String: Any] = [
            "method": request.method,
            "url": request.fullURL,
            "path": request.path,
            "rawTarget": request.rawTarget,
            "args": groupedPairs(request.query),
            "queryPairs": request.query.map { [$0.0, $0.1] },
            "headers": headerObject(request),
            "headerLines": request.headerLines.map { [$0.name, $0.value] },
            "bodyLength": request.bodyLength,
            "bodyTruncated": request.bodyTruncated,
        ]
        let body = Data(request.body.readableBytesView)
        if let text = String(data: body, encoding: .utf8) {
            object["body"] = text
            object["bodyBase64"] = false
        } else {
            object["body"] = body.base64EncodedString()
            object["bodyBase64"] = true
        }
        let contentType = (request.header("Content-Type") ?? "").lowercased()
        object["json"] = NSNull()
        if contentType.contains("json"), !body.isEmpty,
            let parsed = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])
        {
            object["json"] = parsed
        }
        if contentType.hasPrefix("application/x-www-form-urlencoded") {
            if let text = String(data: body, encoding: .utf8), let pairs = ReceivedRequest.parseForm(text) {
                object["form"] = groupedPairs(pairs)
                object["formPairs"] = pairs.map { [$0.0, $0.1] }
            } else {
                request.complaints.add("the form body is not valid percent-encoded UTF-8")
            }
        } else if contentType.hasPrefix("multipart/form-data") {
            do {
                let parts = try MultipartParser.parse(body: body, contentType: request.header("Content-Type") ?? "")
                object["form"] = parts.form
                object["formPairs"] = parts.fields.map { [$0.0, $0.1] }
                object["files"] = parts.files
            } catch {
                request.complaints.add("multipart body rejected: \(error)")
            }
        }
        return object
    }

    /// Echoes the request as JSON.
    static func echo(_ request: ReceivedRequest, allocator: ByteBufferAllocator) -> ResponseScript {
        Reply.json(request, echoObject(request), allocator: allocator)
    }

    /// `/status/{code}`: answers with that status; 3xx may carry `?location=`.
    static func status(
        _ request: ReceivedRequest, segments: [String], allocator: ByteBufferAllocator
    ) -> ResponseScript {
        guard segments.count == 2, let code = Int(segments[1]), (200...999).contains(code) else {
            return Router.badRequest(request, "expected /status/{code} with a code from 200 to 999", allocator)
        }
        var headers: [(String, String)] = []
        if (300..<400).contains(code), let location = request.queryValue("location") {
            headers.append(("Location", location))
        }
        if code == 401 {
            headers.append(("WWW-Authenticate", "Basic realm=\"test\""))
        }
        if code == 204 || code == 304 {
            return Reply.empty(request, status: code, headers: headers, allocator: allocator)
        }
        return Reply.json(request, status: code, ["status": code], headers: headers, allocator: allocator)
    }

    /// `/gzip`, `/deflate`, `/brotli`: the echo JSON, compressed in memory.
    static func compressedEcho(
        _ request: ReceivedRequest, encoding: String, allocator: ByteBufferAllocator
    ) -> ResponseScript {
        var object = echoObject(request)
        object[encoding == "gzip" ? "gzipped" : encoding == "deflate" ? "deflated" : "brotli"] = true
        let plain = JSONBody.encode(object)
        let compressed: Data?
        switch encoding {
        case "gzip": compressed = Compression.deflate(plain, format: .gzip)
        case "deflate": compressed = Compression.deflate(plain, format: .zlib)
        default: compressed = Compression.brotli(plain)
        }
        guard let compressed else {
            return Reply.json(request, status: 500, ["error": "\(encoding) compression failed"], allocator: allocator)
        }
        let headers = [("Content-Type", "application/json"), ("Content-Encoding", encoding == "brotli" ? "br" : encoding)]
        return Reply.fixed(
            request, headers: headers, body: allocator.buffer(bytes: compressed), allocator: allocator)
    }

    /// `/response-headers?Name=value…`: sets those response fields and echoes them as JSON.
    static func responseHeaders(_ request: ReceivedRequest, allocator: ByteBufferAllocator) -> ResponseScript {
        let fields = request.query.filter { isToken($0.0) && !$0.1.contains(where: { $0 == "\r" || $0 == "\n" }) }
        return Reply.json(request, groupedPairs(fields), headers: fields, allocator: allocator)
    }

    /// `/upload`: reports the size and CRC-32 of a body of any size, which was streamed, not kept.
    static func upload(_ request: ReceivedRequest, allocator: ByteBufferAllocator) -> ResponseScript {
        let object: [String: Any] = [
            "method": request.method,
            "bytes": request.bodyLength,
            "crc32": Int(request.bodyCRC32),
            "chunked": request.isChunked,
            "contentLength": request.declaredContentLength.map { $0 as Any } ?? NSNull(),
        ]
        return Reply.json(request, object, allocator: allocator)
    }

    /// `/content-type?type=T&body=B`, `/charset/latin1`, and `/xml`.
    static func content(
        _ request: ReceivedRequest, segments: [String], allocator: ByteBufferAllocator
    ) -> ResponseScript {
        switch segments.first {
        case "content-type":
            let type = request.queryValue("type") ?? "text/plain"
            guard !type.contains(where: { $0 == "\r" || $0 == "\n" }) else {
                return Router.badRequest(request, "type must not contain line breaks", allocator)
            }
            let body = request.queryValue("body") ?? ""
            return Reply.fixed(
                request, headers: [("Content-Type", type)], body: allocator.buffer(string: body),
                allocator: allocator)
        case "charset":
            guard segments.count == 2, segments[1] == "latin1" else {
                return Router.badRequest(request, "only /charset/latin1 exists", allocator)
            }
            // "café" in ISO-8859-1: é is the single byte 0xE9.
            let bytes: [UInt8] = [0x63, 0x61, 0x66, 0xE9]
            return Reply.fixed(
                request, headers: [("Content-Type", "text/plain; charset=iso-8859-1")],
                body: allocator.buffer(bytes: bytes), allocator: allocator)
        default:
            return Reply.text(request, xmlDocument, contentType: "application/xml; charset=utf-8", allocator: allocator)
        }
    }

    /// The document served by `/xml`.
    static let xmlDocument = """
        <?xml version="1.0" encoding="UTF-8"?>
        <catalog name="test">
          <book id="1" lang="en">
            <title>Swift &amp; curl</title>
            <author>Ann Example</author>
            <price currency="EUR">12.50</price>
          </book>
          <book id="2" lang="fr">
            <title>Réseaux</title>
            <author>Jean Exemple</author>
            <price currency="USD">30.00</price>
          </book>
        </catalog>

        """

    // MARK: Helpers

    /// Request header fields as a JSON object: lowercased names, repeated values joined by ", ".
    static func headerObject(_ request: ReceivedRequest) -> [String: String] {
        var result: [String: String] = [:]
        for (name, value) in request.head.headers {
            let key = name.lowercased()
            if let existing = result[key] {
                result[key] = existing + ", " + value
            } else {
                result[key] = value
            }
        }
        return result
    }

    /// Pairs as a JSON object: a single value stays a string, repeated names become arrays.
    static func groupedPairs(_ pairs: [(String, String)]) -> [String: Any] {
        var grouped: [String: [String]] = [:]
        for (name, value) in pairs {
            grouped[name, default: []].append(value)
        }
        return grouped.mapValues { values -> Any in values.count == 1 ? values[0] : values }
    }

    /// Whether `name` is a valid header field name (an RFC 9110 token).
    static func isToken(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    return true
                default:
                    return "!#$%&'*+-.^_`|~".utf8.contains(byte)
                }
            }
    }
}
