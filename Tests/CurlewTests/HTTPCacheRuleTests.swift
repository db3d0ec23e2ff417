import Foundation
import HTTPTypes
import Testing

@testable import Curlew

/// The pure rules: directive parsing and the freshness arithmetic of RFC 9111 §4.2.
@Suite struct HTTPCacheRuleTests {
    let start = Date(timeIntervalSince1970: 1_700_000_000)

    func fields(_ pairs: [(String, String)]) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in pairs { fields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        return fields
    }

    @Test func directivesAreParsed() {
        let control = CacheControl(["max-age=60, No-Cache, private=\"a, b\"", "stale-while-revalidate=30,immutable, s-maxage=5"])
        #expect(control.maxAge == 60 && control.noCache && control.isPrivate && control.immutable)
        #expect(control.staleWhileRevalidate == 30 && control.sMaxAge == 5 && !control.noStore && !control.mustRevalidate)
        #expect(CacheControl(["max-age=abc"]).maxAge == 0)
        #expect(CacheControl(["max-stale"]).maxStale == Int.max)
        #expect(CacheControl(["max-age=99999999999999"]).maxAge == 1 << 31)
        #expect(CacheControl(fields([("Pragma", "no-cache")])).noCache)
        #expect(!CacheControl(fields([("Pragma", "no-cache"), ("Cache-Control", "max-age=1")])).noCache)
    }

    @Test func lifetimePrefersMaxAgeThenExpiresThenTheHeuristic() {
        let date = CacheTestClock.httpDate(start)
        let expires = CacheTestClock.httpDate(start + 100)
        let modified = CacheTestClock.httpDate(start - 5000)
        func lifetime(_ status: Int, _ pairs: [(String, String)]) -> TimeInterval {
            let fields = fields(pairs)
            return CacheFreshness.lifetime(status: status, fields: fields, control: CacheControl(fields), responseTime: start + 7)
        }
        #expect(lifetime(200, [("Cache-Control", "max-age=30"), ("Expires", expires), ("Date", date)]) == 30)
        #expect(lifetime(200, [("Expires", expires), ("Date", date)]) == 100)
        #expect(lifetime(200, [("Expires", expires)]) == 93)  // no Date: from the response time
        #expect(lifetime(200, [("Expires", "0"), ("Last-Modified", modified)]) == 0)
        #expect(lifetime(200, [("Date", date), ("Last-Modified", modified)]) == 500)
        #expect(lifetime(404, [("Date", date), ("Last-Modified", modified)]) == 500)
        #expect(lifetime(302, [("Date", date), ("Last-Modified", modified)]) == 0)
        #expect(lifetime(500, [("Date", date), ("Last-Modified", modified)]) == 0)
    }

    @Test func ageIsCorrectedForTheDateTheAgeFieldAndTheDelay() {
        let date = CacheTestClock.httpDate(start - 10)
        // Apparent age 10 wins over Age 3 + delay 2.
        #expect(CacheFreshness.initialAge(fields: fields([("Date", date), ("Age", "3")]), requestTime: start - 2, responseTime: start) == 10)
        // Age 30 + delay 2 wins over the apparent age.
        #expect(CacheFreshness.initialAge(fields: fields([("Date", date), ("Age", "30")]), requestTime: start - 2, responseTime: start) == 32)
        // A Date in the future gives no negative age.
        #expect(CacheFreshness.initialAge(fields: fields([("Date", CacheTestClock.httpDate(start + 50))]), requestTime: start, responseTime: start) == 0)
        #expect(CacheFreshness.currentAge(initialAge: 10, responseTime: start, now: start + 5) == 15)
    }

    @Test func storabilityFollowsStatusAndExplicitFreshness() {
        let request = OutgoingRequest(url: URL(string: "http://a.test/x")!)
        func storable(_ status: Int, _ pairs: [(String, String)], credentialed: Bool = false) -> Bool {
            CacheRules.isStorable(
                HTTPResponse(status: .init(code: status), headerFields: fields(pairs)), request: request, requestControl: CacheControl(),
                credentialed: credentialed)
        }
        #expect(storable(200, []) && storable(404, []) && storable(301, []))
        #expect(!storable(500, []) && storable(500, [("Cache-Control", "max-age=5")]))
        #expect(!storable(206, [("Cache-Control", "max-age=5")]) && !storable(200, [("Cache-Control", "no-store")]))
        #expect(!storable(200, [("Vary", "*")]))
        var post = request
        post.method = .post
        #expect(!CacheRules.isStorable(HTTPResponse(status: .ok), request: post, requestControl: CacheControl(), credentialed: false))
        // RFC 9111 §3.5: a response to a request with credentials, only when it says so.
        #expect(!storable(200, [("Cache-Control", "max-age=60")], credentialed: true))
        #expect(!storable(200, [("Cache-Control", "private, max-age=60")], credentialed: true))
        #expect(storable(200, [("Cache-Control", "public, max-age=60")], credentialed: true))
        #expect(storable(200, [("Cache-Control", "max-age=60, must-revalidate")], credentialed: true))
        #expect(storable(200, [("Cache-Control", "s-maxage=60")], credentialed: true))
    }

    /// The key names the resource: no fragment, no user name or password; a socket of its own
    /// when the request goes to one.
    @Test func theKeyLeavesOutTheFragmentAndTheUserInformation() {
        #expect(CacheRules.key(URL(string: "http://a.test/x?q=1#frag")!) == "http://a.test/x?q=1")
        #expect(CacheRules.key(URL(string: "http://ann:secret@a.test:8080/x#f")!) == "http://a.test:8080/x")
        #expect(CacheRules.key(URL(string: "http://ann@a.test/x")!) == "http://a.test/x")
        #expect(CacheRules.key(URL(string: "http://a.test/x?mail=a@b.test")!) == "http://a.test/x?mail=a@b.test")
        var request = OutgoingRequest(url: URL(string: "http://localhost/x")!)
        request.options.unixSocketPath = "/run/a#b.sock"
        #expect(CacheRules.key(request) == "http://localhost/x via %2Frun%2Fa%23b%2Esock")
        #expect(!CacheRules.key(request).contains("#"))
    }

    /// A stored head keeps digests of the values `Vary` names, never the values themselves.
    @Test func varyKeepsDigestsNotValues() {
        var request = OutgoingRequest(url: URL(string: "http://a.test/x")!)
        request.headerFields[HTTPField.Name("X-Api-Key")!] = "key-0123456789"
        request.headerFields[.acceptLanguage] = "de"
        let values = CacheRules.varyValues(response: fields([("Vary", "X-Api-Key, Accept-Language")]), request: request)
        #expect(values?.count == 2)
        #expect(values?.values.contains { $0.contains("key-0123456789") || $0 == "de" } == false)
        #expect(values?["x-api-key"] == CacheRules.varyDigest(name: "x-api-key", value: "key-0123456789"))
        #expect(CacheRules.varyDigest(name: "x-api-key", value: "other") != values?["x-api-key"])
    }

    @Test func a304ReplacesFieldsButKeepsTheLength() {
        let head = CacheEntryHead(
            key: "k", status: 200, reason: "OK", fields: [["ETag", "\"1\""], ["Content-Length", "5"], ["X-A", "old"], ["X-B", "b"]],
            vary: nil, requestTime: start, responseTime: start, bodyLength: 5, bodyChecksum: 0)
        let notModified = HTTPResponse(status: .notModified, headerFields: fields([("X-A", "new"), ("Content-Length", "0")]))
        let merged = CacheRules.merged(head, with: notModified, requestTime: start + 1, responseTime: start + 2)
        #expect(merged.headerFields[HTTPField.Name("X-A")!] == "new" && merged.headerFields[.contentLength] == "5")
        #expect(merged.headerFields[HTTPField.Name("X-B")!] == "b" && merged.responseTime == start + 2)
        let cookie = HTTPResponse(status: .notModified, headerFields: fields([("Set-Cookie", "sid=ann"), ("X-A", "newer")]))
        let remerged = CacheRules.merged(merged, with: cookie, requestTime: start + 3, responseTime: start + 4)
        #expect(remerged.headerFields[.setCookie] == nil && remerged.headerFields[HTTPField.Name("X-A")!] == "newer")
    }

    @Test func minFreshAndMaxAgeOfTheRequestNarrowFreshness() {
        let head = CacheEntryHead(
            key: "k", status: 200, reason: "OK", fields: [["Cache-Control", "max-age=100"]], vary: nil,
            requestTime: start, responseTime: start, bodyLength: 0, bodyChecksum: 0)
        let entry = CacheEntry(head: head, body: .memory(Data()))
        let request = OutgoingRequest(url: URL(string: "http://a.test/x")!)
        func decide(_ directive: String) -> String {
            switch CacheRules.decide(entry: entry, request: request, requestControl: CacheControl([directive]), policy: .useProtocolPolicy, now: start + 60) {
            case .serve: return "serve"
            case .load: return "load"
            case .serveAndRevalidate: return "swr"
            case .unavailable: return "unavailable"
            }
        }
        #expect(decide("") == "serve" && decide("min-fresh=30") == "serve" && decide("min-fresh=50") == "load")
        #expect(decide("max-age=59") == "load" && decide("max-age=60") == "serve")
    }
}
