import Foundation
import HTTPTypes

/// The rules of RFC 9111 as plain functions of requests, heads, entries and times.
enum CacheRules {
    static let pragma = HTTPField.Name("Pragma")
    /// Fields a `304` does not update in the stored head (RFC 9111 §3.2).
    private static let keptOn304: Set<String> = ["content-length", "content-encoding", "transfer-encoding", "content-range", "connection", "keep-alive"]
    private static let conditionalFields: [HTTPField.Name] = [.ifNoneMatch, .ifModifiedSince, .ifMatch, .ifUnmodifiedSince, .ifRange, .range]

    /// The cache key of a URL, naming the resource: the URL without its fragment and without
    /// its user information (a user name and password are credentials, which the request's
    /// ``CacheKey`` partition accounts for; they are never part of a key, which the disk store
    /// writes down). A key never holds `#`.
    static func key(_ url: URL) -> String {
        var text = url.absoluteString
        return text.withUTF8 { bytes in
            let end = bytes.firstIndex(of: UInt8(ascii: "#")) ?? bytes.count
            guard let layout = URLTextLayout(bytes), layout.hasUserInfo, let authority = layout.authority else {
                return end == bytes.count ? String(decoding: bytes, as: UTF8.self) : String(decoding: bytes[..<end], as: UTF8.self)
            }
            var key = [UInt8](bytes[..<authority.lowerBound])
            key.append(contentsOf: bytes[layout.hostStart..<end])
            return String(decoding: key, as: UTF8.self)
        }
    }

    /// The resource key of `request`: ``key(_:)`` of its URL, and, when
    /// ``RequestOptions/unixSocketPath`` sends it to a socket, that socket (percent-encoded, after
    /// a space, which no URL holds): two servers on two sockets answer the same URL differently.
    static func key(_ request: OutgoingRequest) -> String {
        key(request.url, socket: request.options.unixSocketPath)
    }

    static func key(_ url: URL, socket: String?) -> String {
        guard let socket else { return key(url) }
        return key(url) + " via " + (socket.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
    }

    /// Whether the request's own header fields make it pass by the cache (a range, or the
    /// caller's own conditional request, whose `304` belongs to the caller).
    static func bypasses(_ request: OutgoingRequest) -> Bool {
        conditionalFields.contains { request.headerFields[$0] != nil }
    }

    static func isSafe(_ method: HTTPRequest.Method) -> Bool {
        method == .get || method == .head || method == .options || method == .trace
    }

    // MARK: Freshness

    /// How old the entry is now and how long it stays fresh, in seconds.
    static func age(of head: CacheEntryHead, control: CacheControl, now: Date) -> (age: TimeInterval, lifetime: TimeInterval) {
        let fields = head.headerFields
        let initial = CacheFreshness.initialAge(fields: fields, requestTime: head.requestTime, responseTime: head.responseTime)
        let age = CacheFreshness.currentAge(initialAge: initial, responseTime: head.responseTime, now: now)
        let lifetime = CacheFreshness.lifetime(status: head.status, fields: fields, control: control, responseTime: head.responseTime)
        return (age, lifetime)
    }

    static func decide(
        entry: CacheEntry?, request: OutgoingRequest, requestControl: CacheControl, policy: CachePolicy, now: Date
    ) -> CacheDecision {
        let usable = entry.flatMap { matchesVary($0.head, request) ? $0 : nil }
        switch policy {
        case .reloadIgnoringCache: return .load(nil)
        case .returnCacheDataElseLoad: return usable.map { .serve($0, .hit) } ?? .load(nil)
        case .returnCacheDataDontLoad: return usable.map { .serve($0, .hit) } ?? .unavailable
        case .useProtocolPolicy: break
        }
        guard let entry = usable else { return requestControl.onlyIfCached ? .unavailable : .load(nil) }
        let control = CacheControl(entry.head.headerFields)
        let (age, lifetime) = age(of: entry.head, control: control, now: now)
        let fresh = lifetime > age
        // RFC 8246: a fresh immutable response is not revalidated, even on a reload.
        if fresh, control.immutable, !control.noCache { return .serve(entry, .hit) }
        var acceptable = fresh && !control.noCache && !requestControl.noCache
        if let maxAge = requestControl.maxAge, age > TimeInterval(maxAge) { acceptable = false }
        if let minFresh = requestControl.minFresh, lifetime - age < TimeInterval(minFresh) { acceptable = false }
        if acceptable { return .serve(entry, .hit) }
        if !fresh, !control.mustRevalidate, !control.noCache, !requestControl.noCache {
            let staleness = age - lifetime
            if let maxStale = requestControl.maxStale, staleness <= TimeInterval(maxStale) { return .serve(entry, .stale) }
            if !requestControl.onlyIfCached, let window = control.staleWhileRevalidate, staleness <= TimeInterval(window) {
                return .serveAndRevalidate(entry)
            }
        }
        return requestControl.onlyIfCached ? .unavailable : .load(entry)
    }

    /// Whether a stale entry may stand in for a failed revalidation (RFC 5861 `stale-if-error`,
    /// from the response or the request; never past `must-revalidate` or `no-cache`).
    static func staleIfErrorAllows(_ entry: CacheEntry, requestControl: CacheControl, now: Date) -> Bool {
        let control = CacheControl(entry.head.headerFields)
        guard !control.mustRevalidate, !control.noCache else { return false }
        guard let window = requestControl.staleIfError ?? control.staleIfError else { return false }
        let (age, lifetime) = age(of: entry.head, control: control, now: now)
        return age - lifetime <= TimeInterval(window)
    }

    static func isServerError(_ status: Int) -> Bool { [500, 502, 503, 504].contains(status) }

    // MARK: Vary

    /// The request's values of the fields `Vary` names, each as a digest (see ``varyDigest(name:value:)``);
    /// nil without `Vary`; `["*": "*"]` for `Vary: *`.
    static func varyValues(response fields: HTTPFields, request: OutgoingRequest) -> [String: String]? {
        let names = fields[values: .vary].flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
        guard !names.isEmpty else { return nil }
        if names.contains("*") { return ["*": "*"] }
        var values: [String: String] = [:]
        for name in names {
            guard let fieldName = HTTPField.Name(name) else { continue }
            let found = request.headerFields[values: fieldName]
            if !found.isEmpty { values[name] = varyDigest(name: name, value: found.joined(separator: ", ")) }
        }
        return values
    }

    /// What a stored head keeps of a request field that `Vary` names: the SHA-256 of its name and
    /// value, never the value. A server may name any field — `Authorization`, `Cookie`, an API
    /// key of its own — and the head goes to disk; equal values still give equal digests.
    static func varyDigest(name: String, value: String) -> String {
        var bytes = Array(name.utf8)
        bytes.append(0)
        bytes.append(contentsOf: value.utf8)
        return PeerCertificate.hex(PeerCertificate.sha256(Data(bytes)))
    }

    /// Whether the request presents the same values as the one that got the stored response.
    static func matchesVary(_ head: CacheEntryHead, _ request: OutgoingRequest) -> Bool {
        guard let stored = head.vary else { return true }
        if stored["*"] != nil { return false }
        return varyValues(response: head.headerFields, request: request) == stored
    }

    // MARK: Storing

    /// Whether a response to `request` may be stored (RFC 9111 §3, §3.5). `credentialed` says
    /// whether the request carried credentials however they were attached (see
    /// ``CacheIdentity``): its response is stored only when it says `public`, `must-revalidate`
    /// or `s-maxage`, as for a shared cache, since one session may act for many users.
    static func isStorable(_ head: HTTPResponse, request: OutgoingRequest, requestControl: CacheControl, credentialed: Bool) -> Bool {
        guard request.method == .get, CacheFreshness.isUnderstood(head.status.code), !requestControl.noStore else { return false }
        let control = CacheControl(head.headerFields)
        guard !control.noStore else { return false }
        if head.headerFields[.vary] != nil, varyValues(response: head.headerFields, request: request)?["*"] != nil { return false }
        if credentialed, !(control.isPublic || control.mustRevalidate || control.sMaxAge != nil) {
            return false
        }
        return CacheFreshness.hasFreshnessInformation(status: head.status.code, fields: head.headerFields, control: control)
            || control.noCache
    }

    /// Whether the head sets cookies. Such a response is not stored (nginx's and Varnish's
    /// default): served again, its `Set-Cookie` — often a new session — would go to whoever
    /// asks next, another user of the session among them. A ``ResponseCacher`` that removes
    /// the field lets the rest be stored.
    static func setsCookies(_ head: HTTPResponse) -> Bool {
        head.headerFields[.setCookie] != nil
    }

    /// The entry's head as a `304` updates it: each field the `304` carries replaces the stored
    /// ones of that name (RFC 9111 §3.2, §4.3.4), and its times start again.
    static func merged(_ head: CacheEntryHead, with notModified: HTTPResponse, requestTime: Date, responseTime: Date) -> CacheEntryHead {
        var fields = head.headerFields
        // A `Set-Cookie` is never stored: it would be replayed to whoever the entry serves next.
        let updates = notModified.headerFields.filter { !keptOn304.contains($0.name.canonicalName) && $0.name != .setCookie }
        for name in Set(updates.map(\.name)) {
            fields[values: name] = updates.filter { $0.name == name }.map(\.value)
        }
        var result = head
        result.fields = CacheEntryHead.pairs(fields)
        result.requestTime = requestTime
        result.responseTime = responseTime
        return result
    }

    /// The request with `If-None-Match`/`If-Modified-Since` from the entry; nil without validators.
    static func conditional(_ request: OutgoingRequest, for entry: CacheEntry) -> OutgoingRequest? {
        let fields = entry.head.headerFields
        guard fields[.eTag] != nil || fields[.lastModified] != nil else { return nil }
        var conditional = request
        conditional.method = .get
        if let tag = fields[.eTag] { conditional.headerFields[.ifNoneMatch] = tag }
        if let modified = fields[.lastModified] { conditional.headerFields[.ifModifiedSince] = modified }
        return conditional
    }

    /// The keys an unsafe request invalidates: its URL, and `Location`/`Content-Location` of
    /// the same origin (RFC 9111 §4.4).
    static func invalidatedKeys(request: OutgoingRequest, head: HTTPResponse) -> [String] {
        let socket = request.options.unixSocketPath
        var keys = [key(request.url, socket: socket)]
        for name in [HTTPField.Name.location, .contentLocation] {
            guard let value = head.headerFields[name], let target = URL(string: value, relativeTo: request.url)?.absoluteURL,
                target.scheme?.lowercased() == request.url.scheme?.lowercased(),
                target.host?.lowercased() == request.url.host?.lowercased(), target.port == request.url.port
            else { continue }
            keys.append(key(target, socket: socket))
        }
        return keys
    }
}
