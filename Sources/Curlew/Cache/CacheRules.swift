import Foundation
import HTTPTypes

/// The rules of RFC 9111 as plain functions of requests, heads, entries and times.
enum CacheRules {
    static let pragma = HTTPField.Name("Pragma")
    /// Fields a `304` does not update in the stored head (RFC 9111 §3.2).
    private static let keptOn304: Set<String> = ["content-length", "content-encoding", "transfer-encoding", "content-range", "connection", "keep-alive"]
    private static let conditionalFields: [HTTPField.Name] = [.ifNoneMatch, .ifModifiedSince, .ifMatch, .ifUnmodifiedSince, .ifRange, .range]

    /// The cache key of a URL: the URL without its fragment.
    static func key(_ url: URL) -> String {
        let text = url.absoluteString
        guard let hash = text.firstIndex(of: "#") else { return text }
        return String(text[..<hash])
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

    /// The request's values of the fields `Vary` names; nil without `Vary`; `["*": "*"]` for `Vary: *`.
    static func varyValues(response fields: HTTPFields, request: OutgoingRequest) -> [String: String]? {
        let names = fields[values: .vary].flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
        guard !names.isEmpty else { return nil }
        if names.contains("*") { return ["*": "*"] }
        var values: [String: String] = [:]
        for name in names {
            guard let fieldName = HTTPField.Name(name) else { continue }
            let found = request.headerFields[values: fieldName]
            if !found.isEmpty { values[name] = found.joined(separator: ", ") }
        }
        return values
    }

    /// Whether the request presents the same values as the one that got the stored response.
    static func matchesVary(_ head: CacheEntryHead, _ request: OutgoingRequest) -> Bool {
        guard let stored = head.vary else { return true }
        if stored["*"] != nil { return false }
        return varyValues(response: head.headerFields, request: request) == stored
    }

    // MARK: Storing

    /// Whether a response to `request` may be stored (RFC 9111 §3, §3.5).
    static func isStorable(_ head: HTTPResponse, request: OutgoingRequest, requestControl: CacheControl) -> Bool {
        guard request.method == .get, CacheFreshness.isUnderstood(head.status.code), !requestControl.noStore else { return false }
        let control = CacheControl(head.headerFields)
        guard !control.noStore else { return false }
        if varyValues(response: head.headerFields, request: request)?["*"] != nil { return false }
        if request.headerFields[.authorization] != nil, !(control.isPublic || control.mustRevalidate || control.sMaxAge != nil) {
            return false
        }
        return CacheFreshness.hasFreshnessInformation(status: head.status.code, fields: head.headerFields, control: control)
            || control.noCache
    }

    /// The entry's head as a `304` updates it: each field the `304` carries replaces the stored
    /// ones of that name (RFC 9111 §3.2, §4.3.4), and its times start again.
    static func merged(_ head: CacheEntryHead, with notModified: HTTPResponse, requestTime: Date, responseTime: Date) -> CacheEntryHead {
        var fields = head.headerFields
        let updates = notModified.headerFields.filter { !keptOn304.contains($0.name.canonicalName) }
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
        var keys = [key(request.url)]
        for name in [HTTPField.Name.location, .contentLocation] {
            guard let value = head.headerFields[name], let target = URL(string: value, relativeTo: request.url)?.absoluteURL,
                target.scheme?.lowercased() == request.url.scheme?.lowercased(),
                target.host?.lowercased() == request.url.host?.lowercased(), target.port == request.url.port
            else { continue }
            keys.append(key(target))
        }
        return keys
    }
}
