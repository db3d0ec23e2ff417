import Foundation
import NIOCore

/// `/cache/{name}?Header=value…`: a response for cache tests. Every query pair becomes a response
/// field (`ETag`, `Last-Modified`, `Cache-Control`, `Vary`, `Date`, `Expires`, `Age`…). A request
/// whose `If-None-Match` equals the `ETag`, or whose `If-Modified-Since` equals the
/// `Last-Modified`, gets `304` with the same fields. Every response carries `X-Served: n`, the
/// request count of the path, and the body `{name} #{n} lang={Accept-Language}`, so tests tell a
/// stored body from a new one. `X-Test-Status` still overrides the status.
enum CacheRoutes {
    static func respond(_ request: ReceivedRequest, state: ServerState, allocator: ByteBufferAllocator) -> ResponseScript {
        let count = state.requestCount(path: request.path)
        var fields = request.query.filter { pair in !pair.1.contains(where: { $0 == "\r" || $0 == "\n" }) }
        fields.append(("X-Served", String(count)))
        let tag = fields.first { $0.0.lowercased() == "etag" }?.1
        let modified = fields.first { $0.0.lowercased() == "last-modified" }?.1
        let notModified = (tag != nil && request.header("If-None-Match") == tag)
            || (tag == nil && modified != nil && request.header("If-Modified-Since") == modified)
        if notModified {
            return Reply.empty(request, status: 304, headers: fields, allocator: allocator)
        }
        let name = request.pathSegments.dropFirst().joined(separator: "/")
        let body = "\(name) #\(count) lang=\(request.header("Accept-Language") ?? "")"
        return Reply.fixed(
            request, headers: [("Content-Type", "text/plain")] + fields, body: allocator.buffer(string: body),
            allocator: allocator)
    }
}
