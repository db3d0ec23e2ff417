import Foundation
import NIOCore

/// Builders for the common shapes of response script: a fixed body with Content-Length, JSON,
/// and a chunked body produced on demand.
enum Reply {
    /// A response whose whole body is known, sent with Content-Length (none for 1xx/204/304).
    static func fixed(
        _ request: ReceivedRequest,
        status: Int = 200,
        headers: [(String, String)] = [],
        body: ByteBuffer?,
        allocator: ByteBufferAllocator
    ) -> ResponseScript {
        var head = request.finalize(ResponseHead(status: status, headers: headers))
        let bodyless = head.status == 204 || head.status == 304 || (100..<200).contains(head.status)
        if bodyless {
            head.remove("Content-Length")
            return ResponseScript([.head(head.serialized(allocator: allocator)), .end])
        }
        let length = body?.readableBytes ?? 0
        if !head.contains("Content-Length") {
            head.headers.append(("Content-Length", String(length)))
        }
        var steps: [ResponseStep] = [.head(head.serialized(allocator: allocator))]
        if let body, length > 0 {
            steps.append(.body(body))
        }
        steps.append(.end)
        return ResponseScript(steps)
    }

    /// A UTF-8 text response.
    static func text(
        _ request: ReceivedRequest,
        status: Int = 200,
        _ text: String,
        contentType: String = "text/plain; charset=utf-8",
        headers: [(String, String)] = [],
        allocator: ByteBufferAllocator
    ) -> ResponseScript {
        fixed(
            request, status: status, headers: [("Content-Type", contentType)] + headers,
            body: allocator.buffer(string: text), allocator: allocator)
    }

    /// A JSON response of `object` (dictionaries, arrays, strings, numbers, `NSNull`).
    static func json(
        _ request: ReceivedRequest,
        status: Int = 200,
        _ object: Any,
        headers: [(String, String)] = [],
        allocator: ByteBufferAllocator
    ) -> ResponseScript {
        fixed(
            request, status: status, headers: [("Content-Type", "application/json")] + headers,
            body: allocator.buffer(bytes: JSONBody.encode(object)), allocator: allocator)
    }

    /// An empty response, typically a redirect.
    static func empty(
        _ request: ReceivedRequest,
        status: Int,
        headers: [(String, String)] = [],
        allocator: ByteBufferAllocator
    ) -> ResponseScript {
        fixed(request, status: status, headers: headers, body: nil, allocator: allocator)
    }

    /// A chunked response. `produce` returns the next steps, usually `.body` pieces (unframed),
    /// or `nil` at the end; each piece becomes one chunk. Pieces are framed without being copied.
    /// An HTTP/1.0 client gets the pieces unframed, ended by closing the connection.
    static func chunked(
        _ request: ReceivedRequest,
        status: Int = 200,
        headers: [(String, String)] = [],
        allocator: ByteBufferAllocator,
        produce: @escaping () -> [ResponseStep]?
    ) -> ResponseScript {
        var head = request.finalize(ResponseHead(status: status, headers: headers))
        head.remove("Content-Length")
        var finished = false
        guard request.supportsChunkedResponses else {
            head.set("Connection", "close")
            return ResponseScript([.head(head.serialized(allocator: allocator))]) {
                guard !finished else { return nil }
                guard let steps = produce(), !steps.isEmpty else {
                    finished = true
                    return [.close]
                }
                return steps
            }
        }
        head.set("Transfer-Encoding", "chunked")
        return ResponseScript([.head(head.serialized(allocator: allocator))]) {
            guard !finished else { return nil }
            while true {
                guard let steps = produce(), !steps.isEmpty else {
                    finished = true
                    return [.body(allocator.buffer(staticString: "0\r\n\r\n"))]
                }
                let framed = steps.flatMap { step -> [ResponseStep] in
                    guard case .body(let piece) = step else { return [step] }
                    // An empty chunk would end the body early; skip it.
                    guard piece.readableBytes > 0 else { return [] }
                    let prefix = allocator.buffer(string: String(piece.readableBytes, radix: 16) + "\r\n")
                    return [.body(prefix), .body(piece), .body(allocator.buffer(staticString: "\r\n"))]
                }
                if !framed.isEmpty {
                    return framed
                }
            }
        }
    }
}

/// JSON encoding for response bodies.
enum JSONBody {
    /// Encodes `object` with sorted keys; an unencodable object becomes an `{"error": …}` body.
    static func encode(_ object: Any) -> Data {
        do {
            return try JSONSerialization.data(
                withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
        } catch {
            return Data("{\"error\":\"could not encode JSON response\"}".utf8)
        }
    }
}
