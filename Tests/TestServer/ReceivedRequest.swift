import CTestCompression
import Foundation
import NIOCore
import NIOHTTP1

/// A request as the routes see it: its head, parsed target, and what was read of its body.
///
/// What arrived is kept as it arrived: the request target as sent (``rawTarget``), every header
/// line in order with repeated lines kept apart (``headerLines``), and the body bytes. Parsed
/// views never fall back silently: a query or path that does not percent-decode, or a field read
/// with ``header(_:)`` that arrived on several lines, is recorded in ``complaints``, and
/// ``Router`` answers 400.
///
/// The body is counted and checksummed as it streams in; only up to `collectLimit` bytes of it
/// are kept in memory.
struct ReceivedRequest {
    /// The decoded request head.
    let head: HTTPRequestHead
    /// The request target exactly as sent on the request line.
    let rawTarget: String
    /// Every header line in order, as NIO's parser gives it (the name as sent, the value without
    /// surrounding whitespace); repeated lines are separate entries, never joined.
    let headerLines: [(name: String, value: String)]
    /// The path of the request target, still percent-encoded, without the query.
    let path: String
    /// The path split into its segments, each percent-decoded, without the empty leading one.
    let pathSegments: [String]
    /// The query string without the `?`, still encoded; `nil` when the target has none.
    let rawQuery: String?
    /// The query's name/value pairs, decoded as form data, in order, duplicates kept.
    let query: [(String, String)]
    /// What did not parse strictly; a non-empty list makes ``Router`` answer 400.
    let complaints = RequestComplaints()
    /// The `host:port` the connection was accepted on, used when the request has no Host field.
    let localAuthority: String
    /// Whether the connection may carry another request after this one.
    let keepAlive: Bool
    /// The most body bytes to keep in memory; later bytes are only counted.
    let collectLimit: Int

    /// The kept part of the body.
    private(set) var body: ByteBuffer
    /// How many body bytes arrived in total.
    private(set) var bodyLength = 0
    /// Whether more body bytes arrived than were kept.
    private(set) var bodyTruncated = false
    /// The zlib CRC-32 of the whole body.
    private(set) var bodyCRC32: UInt = 0

    init(head: HTTPRequestHead, localAuthority: String, allocator: ByteBufferAllocator) {
        self.head = head
        self.localAuthority = localAuthority
        self.keepAlive = head.isKeepAlive
        self.body = allocator.buffer(capacity: 0)
        self.rawTarget = head.uri
        self.headerLines = head.headers.map { (name: $0.name, value: $0.value) }
        let target = Self.originForm(of: head.uri)
        let path: String
        if let mark = target.firstIndex(of: "?") {
            path = String(target[..<mark])
            let query = String(target[target.index(after: mark)...])
            self.rawQuery = query
            if let pairs = Self.parseForm(query) {
                self.query = pairs
            } else {
                self.query = []
                complaints.add("the query '\(query)' is not valid percent-encoded UTF-8")
            }
        } else {
            path = target
            self.rawQuery = nil
            self.query = []
        }
        self.path = path
        var segments: [String] = []
        for segment in path.split(separator: "/", omittingEmptySubsequences: true) {
            guard let decoded = segment.removingPercentEncoding else {
                complaints.add("the path segment '\(segment)' is not valid percent-encoded UTF-8")
                continue
            }
            segments.append(decoded)
        }
        self.pathSegments = segments
        self.collectLimit = Router.collectLimit(forPath: path)
    }

    /// Adds a piece of the body.
    mutating func consume(_ buffer: ByteBuffer) {
        let count = buffer.readableBytes
        guard count > 0 else { return }
        bodyLength += count
        bodyCRC32 = buffer.withUnsafeReadableBytes { raw in
            UInt(crc32(uLong(bodyCRC32), raw.bindMemory(to: Bytef.self).baseAddress, uInt(raw.count)))
        }
        if body.readableBytes + count <= collectLimit {
            var copy = buffer
            body.writeBuffer(&copy)
        } else {
            bodyTruncated = true
        }
    }

    // MARK: Header and query access

    /// The request method as sent, such as `GET`.
    var method: String { head.method.rawValue }

    /// The value of the header field `name` (case-insensitive), for fields the server reads one
    /// value of. Several lines of it are not resolved by picking one: that is a complaint (the
    /// request gets a 400), and the first line is returned only so the route can finish.
    func header(_ name: String) -> String? {
        let lines = headerLines(named: name)
        if lines.count > 1 {
            complaints.add("\(lines.count) '\(name)' lines \(lines) where the test server reads one value")
        }
        return lines.first
    }

    /// The value of every line of header field `name` (case-insensitive), in order, not joined.
    func headerLines(named name: String) -> [String] {
        headerLines.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }

    /// The comma-separated list elements of field `name` over all its lines, trimmed, in order
    /// (RFC 9110 §5.6.1), for list-valued fields such as Transfer-Encoding.
    func values(named name: String) -> [String] {
        headerLines(named: name).flatMap { line in
            line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
    }

    /// The value of query parameter `name`; several occurrences are a complaint, as in ``header(_:)``.
    func queryValue(_ name: String) -> String? {
        let values = query.filter { $0.0 == name }.map(\.1)
        if values.count > 1 {
            complaints.add("\(values.count) '\(name)' query parameters \(values) where the test server reads one value")
        }
        return values.first
    }

    /// Query parameter `name` as a non-negative integer, or `defaultValue` when absent or invalid.
    func queryInt(_ name: String, default defaultValue: Int) -> Int {
        guard let text = queryValue(name), let value = Int(text), value >= 0 else { return defaultValue }
        return value
    }

    /// Query parameter `name` as a non-negative 64-bit count, or `defaultValue` when absent or invalid.
    func queryUInt64(_ name: String, default defaultValue: UInt64) -> UInt64 {
        guard let text = queryValue(name), let value = UInt64(text) else { return defaultValue }
        return value
    }

    /// The authority the client addressed: the Host field, or the listening address.
    var authority: String {
        header("Host") ?? localAuthority
    }

    /// The full URL the client asked for, as `http://host/path?query`.
    var fullURL: String {
        "http://\(authority)\(path)" + (rawQuery.map { "?\($0)" } ?? "")
    }

    /// Whether the body was sent with chunked transfer coding.
    var isChunked: Bool {
        values(named: "Transfer-Encoding").contains { $0.lowercased() == "chunked" }
    }

    /// Whether the client speaks HTTP/1.1 or later, and so understands chunked responses.
    var supportsChunkedResponses: Bool {
        head.version.major > 1 || (head.version.major == 1 && head.version.minor >= 1)
    }

    /// The Content-Length the client declared, if any and valid.
    var declaredContentLength: Int? {
        header("Content-Length").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    // MARK: Responding

    /// Finishes a response head: applies the `X-Test-Status` and `X-Test-Response-Header`
    /// overrides and announces the connection's end when it will not be reused.
    func finalize(_ head: ResponseHead) -> ResponseHead {
        var head = head
        if let override = header("X-Test-Status"), let code = Int(override.trimmingCharacters(in: .whitespaces)),
            (100...999).contains(code)
        {
            head.status = code
            head.reason = nil
        }
        for field in headerLines(named: "X-Test-Response-Header") {
            guard let colon = field.firstIndex(of: ":") else { continue }
            let name = field[..<colon].trimmingCharacters(in: .whitespaces)
            let value = field[field.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if !name.isEmpty { head.headers.append((name, value)) }
        }
        if !head.contains("Connection") {
            if !keepAlive {
                head.headers.append(("Connection", "close"))
            } else if !supportsChunkedResponses {
                head.headers.append(("Connection", "keep-alive"))
            }
        }
        return head
    }

    // MARK: Parsing helpers

    /// Turns an absolute-form target (`http://host/path`) into origin form (`/path`).
    private static func originForm(of uri: String) -> String {
        guard uri.hasPrefix("http://") || uri.hasPrefix("https://"),
            let schemeEnd = uri.range(of: "://")
        else { return uri.isEmpty ? "/" : uri }
        let afterScheme = uri[schemeEnd.upperBound...]
        guard let slash = afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return "/" }
        let rest = String(afterScheme[slash...])
        return rest.hasPrefix("?") ? "/" + rest : rest
    }

    /// Decodes `a=1&b=two+words` form encoding into ordered pairs, duplicates kept; `nil` when a
    /// name or value is not valid percent-encoded UTF-8 (never the raw text instead).
    static func parseForm(_ text: String) -> [(String, String)]? {
        var pairs: [(String, String)] = []
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = formDecode(parts[0]) else { return nil }
            guard let value = parts.count > 1 ? formDecode(parts[1]) : "" else { return nil }
            pairs.append((name, value))
        }
        return pairs
    }

    private static func formDecode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
