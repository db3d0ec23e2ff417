@testable import Curlew
import Foundation
import Testing

/// The pure rules of HSTS: the header grammar (RFC 6797 §6.1), host matching (§8.2), URL
/// upgrading (§8.3), the store's limit, and the file format.
@Suite("HSTS rules")
struct HSTSRuleTests {
    @Test(arguments: [
        ("max-age=31536000", HSTSHeader(maximumAgeSeconds: 31_536_000, includesSubdomains: false)),
        ("max-age=\"600\"; includeSubDomains", HSTSHeader(maximumAgeSeconds: 600, includesSubdomains: true)),
        ("  INCLUDESUBDOMAINS ;MAX-AGE = 5 ; preload", HSTSHeader(maximumAgeSeconds: 5, includesSubdomains: true)),
        ("max-age=0", HSTSHeader(maximumAgeSeconds: 0, includesSubdomains: false)),
        (";;max-age=1;;", HSTSHeader(maximumAgeSeconds: 1, includesSubdomains: false)),
        ("max-age=99999999999999999999999", HSTSHeader(maximumAgeSeconds: HSTSHeader.maximumAge, includesSubdomains: false)),
    ])
    func conformingFieldsParse(_ field: String, _ expected: HSTSHeader) {
        #expect(HSTSHeader.parse(field) == expected, "\(field)")
    }

    @Test(arguments: [
        "", "includeSubDomains", "max-age", "max-age=", "max-age=-1", "max-age=1.5", "max-age=1; max-age=2",
        "max-age=1; includeSubDomains; includeSubDomains", "max-age=1; includeSubDomains=yes", "max-age=\"5",
        "max-age=5 junk", "max-age=0x10",
    ])
    func nonConformingFieldsAreIgnored(_ field: String) {
        #expect(HSTSHeader.parse(field) == nil, "\(field)")
    }

    @Test func subdomainsMatchOnlyUnderIncludeSubDomains() throws {
        let store = HSTSStore(entries: [
            try HSTSEntry(host: "Example.COM.", includesSubdomains: true),
            try HSTSEntry(host: "exact.test"),
        ])
        #expect(store.requiresHTTPS(forHost: "example.com"))
        #expect(store.requiresHTTPS(forHost: "a.b.example.com"))
        #expect(!store.requiresHTTPS(forHost: "notexample.com"), "a suffix that is not a domain boundary")
        #expect(store.requiresHTTPS(forHost: "exact.test"))
        #expect(!store.requiresHTTPS(forHost: "sub.exact.test"), "no includeSubDomains")
        #expect(!store.requiresHTTPS(forHost: "test"))
    }

    /// A host teaches only about itself: a subdomain's `max-age=0` leaves its parent's
    /// `includeSubDomains` entry (which still covers the subdomain), and a subdomain's header
    /// adds an entry for the subdomain alone.
    @Test func aHostTeachesOnlyAboutItself() throws {
        let store = HSTSStore(entries: [try HSTSEntry(host: "example.com", includesSubdomains: true)])
        store.learn(fromField: "max-age=0", host: "evil.example.com", now: Date())
        #expect(store.requiresHTTPS(forHost: "evil.example.com"))
        store.learn(fromField: "max-age=100; includeSubDomains", host: "a.other.test", now: Date())
        #expect(store.requiresHTTPS(forHost: "b.a.other.test"))
        #expect(!store.requiresHTTPS(forHost: "other.test"), "not the parent")
        #expect(!store.requiresHTTPS(forHost: "b.other.test"), "nor a sibling")
    }

    @Test func lapsedEntriesNoLongerMatch() throws {
        let store = HSTSStore(entries: [try HSTSEntry(host: "old.test", expires: Date(timeIntervalSinceNow: -1))])
        #expect(!store.requiresHTTPS(forHost: "old.test"))
        #expect(store.entries.isEmpty)
    }

    @Test(arguments: [
        ("http://known.test/a?b=c", "https://known.test/a?b=c"),
        ("http://known.test:80/a", "https://known.test/a"),
        ("http://known.test:8080/a", "https://known.test:8080/a"),
        ("HTTP://KNOWN.test/", "https://known.test/"),
    ])
    func upgradesKeepEverythingButTheSchemeAndPort80(_ from: String, _ to: String) throws {
        let store = HSTSStore(entries: [try HSTSEntry(host: "known.test")])
        let source = try #require(URL(string: from))
        let upgraded = try #require(store.upgraded(source))
        #expect(upgraded.absoluteString.lowercased() == to.lowercased())
    }

    @Test func unknownHostsAndIPAddressesAreNotUpgraded() throws {
        let store = HSTSStore(entries: [try HSTSEntry(host: "known.test")])
        #expect(store.upgraded(try #require(URL(string: "http://other.test/"))) == nil)
        #expect(store.upgraded(try #require(URL(string: "https://known.test/"))) == nil)
        store.learn(fromField: "max-age=100", host: "127.0.0.1", now: Date())
        store.learn(fromField: "max-age=100", host: "::1", now: Date())
        #expect(store.entries.map(\.host) == ["known.test"])
    }

    @Test(arguments: ["", "127.0.0.1", "::1", "[::1]", "a..b", "under_score.test", "-", "a-.test", "-a.test", ".", String(repeating: "a", count: 64) + ".test"])
    func badPreloadHostsAreInvalidRequests(_ host: String) {
        let error = #expect(throws: CurlewError.self) { try HSTSEntry(host: host) }
        #expect(error?.kind == .invalidRequest, "\(host)")
    }

    /// Learning past the limit forgets the entry that lapses soonest, never a preloaded one
    /// without expiry, and never the one just learned.
    @Test func theStoreHoldsAtMostItsLimit() throws {
        let now = Date()
        var preload = [try HSTSEntry(host: "forever.test")]
        for index in 0..<(HSTSStore.maximumEntries - 1) {
            preload.append(try HSTSEntry(host: "h\(index).test", expires: now.addingTimeInterval(Double(1000 + index))))
        }
        let store = HSTSStore(entries: preload)
        store.learn(fromField: "max-age=10", host: "new.test", now: now)
        let hosts = Set(store.entries.map(\.host))
        #expect(hosts.count == HSTSStore.maximumEntries)
        #expect(hosts.contains("forever.test") && hosts.contains("new.test"))
        #expect(!hosts.contains("h0.test"), "the soonest to lapse goes")
        #expect(hosts.contains("h1.test"))
    }

    @Test func fileLinesRoundTripInCurlsFormat() throws {
        let expires = Date(timeIntervalSince1970: 1_893_456_000)  // 2030-01-01 00:00:00 UTC
        let entries = [
            try HSTSEntry(host: "a.test", includesSubdomains: true, expires: expires),
            try HSTSEntry(host: "b.test"),
        ]
        let data = HSTSFile.contents(of: entries, now: Date())
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\n.a.test \"20300101 00:00:00\"\n"), "\(text)")
        #expect(text.contains("\nb.test \"unlimited\"\n"), "\(text)")
        let url = URL(fileURLWithPath: "/hsts.txt")
        #expect(try HSTSFile.entries(in: data, from: url) == entries)
    }

    @Test(arguments: ["host", "host \"2030\"", "host \"20301301 00:00:00\"", "1.2.3.4 \"unlimited\"", "bad_host \"unlimited\""])
    func tamperedFileLinesFailTheWholeFile(_ line: String) {
        let data = Data("# comment\nfine.test \"unlimited\"\n\(line)\n".utf8)
        let error = #expect(throws: CurlewError.self) { try HSTSFile.entries(in: data, from: URL(fileURLWithPath: "/hsts.txt")) }
        #expect(error?.kind == .fileSystem)
        #expect(error?.message.contains("line 3") == true, "\(String(describing: error?.message))")
    }
}
