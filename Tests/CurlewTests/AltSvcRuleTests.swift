@testable import Curlew
import Foundation
import Testing

/// The pure rules of Alt-Svc: the file format (curl's), a tampered file refused whole, the
/// merge of what a handle's libcurl cache wrote, the lifetime cap and the store's limits.
@Suite("Alt-Svc rules")
struct AltSvcRuleTests {
    private let url = URL(fileURLWithPath: "/alt-svc.txt")
    /// 2030-01-01 00:00:00 UTC, and a `now` a day before it.
    private let expires = Date(timeIntervalSince1970: 1_893_456_000)
    private var now: Date { expires.addingTimeInterval(-86_400) }

    @Test func fileLinesRoundTripInCurlsFormat() throws {
        let entries = [
            AltSvcEntry(
                host: "a.test", originPort: 443, originProtocol: .http1, alternativeProtocol: .http2, alternativePort: 8443,
                expires: expires, persists: true, now: now),
            AltSvcEntry(
                host: "b.test", originPort: 8443, originProtocol: .http2, alternativeProtocol: .http3, alternativePort: 443,
                expires: expires, persists: false, now: now),
        ]
        let data = AltSvcFile.contents(of: entries, now: now)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\nh1 a.test 443 h2 a.test 8443 \"20300101 00:00:00\" 1 0\n"), "\(text)")
        #expect(text.contains("\nh2 b.test 8443 h3 b.test 443 \"20300101 00:00:00\" 0 0\n"), "\(text)")
        #expect(try AltSvcFile.entries(in: data, from: url, now: now) == entries)
    }

    @Test(arguments: [
        "h1 a.test 443 h2 a.test 8443 \"20300101 00:00:00\" 0",  // eight fields
        "h1 a.test 443 h2 a.test 8443 \"20300101 00:00:00\" 0 0 extra",
        "h9 a.test 443 h2 a.test 8443 \"20300101 00:00:00\" 0 0",  // unknown ALPN
        "h1 a.test 443 h2 a.test 0 \"20300101 00:00:00\" 0 0",  // port 0
        "h1 a.test 443 h2 a.test 65536 \"20300101 00:00:00\" 0 0",
        "h1 a.test +443 h2 a.test 8443 \"20300101 00:00:00\" 0 0",
        "h1 a.test 443 h2 a.test 8443 \"20301301 00:00:00\" 0 0",  // month 13
        "h1 a.test 443 h2 a.test 8443 20300101 00:00:00 0 0",  // unquoted
        "h1 a.test 443 h2 a.test 8443 \"20300101 00:00:00\" 2 0",  // persist 2
        "h1 a_b.test 443 h2 a_b.test 8443 \"20300101 00:00:00\" 0 0",  // not a DNS name
        "h1 ::1 443 h2 ::1 8443 \"20300101 00:00:00\" 0 0",  // IPv6
        "h1 a.test 443 h2 evil.test 8443 \"20300101 00:00:00\" 0 0",  // another host
    ])
    func tamperedFileLinesFailTheWholeFile(_ line: String) {
        let data = Data("# comment\nh1 fine.test 443 h2 fine.test 8443 \"20300101 00:00:00\" 0 0\n\(line)\n".utf8)
        let error = #expect(throws: CurlewError.self) { try AltSvcFile.entries(in: data, from: url, now: now) }
        #expect(error?.kind == .fileSystem)
        #expect(error?.message.contains("line 3") == true, "\(String(describing: error?.message))")
    }

    /// What libcurl wrote for a handle: only the hop's origin counts, and only alternatives on
    /// its own host; lapsed entries are gone, and an expiry is capped at the maximum lifetime.
    @Test func aHandlesFileTeachesOnlyAboutItsOrigin() {
        let text = """
            # Your alt-svc cache.
            h1 a.test 443 h2 a.test 8443 "20300101 00:00:00" 0 0
            h1 a.test 443 h2 other.test 8443 "20300101 00:00:00" 0 0
            h1 b.test 443 h2 b.test 8443 "20300101 00:00:00" 0 0
            h1 a.test 8443 h2 a.test 9443 "20300101 00:00:00" 0 0
            h1 a.test 443 h3 a.test 443 "20291201 00:00:00" 0 0
            h1 a.test 443 h2 a.test 7443 "99991231 00:00:00" 1 0
            garbage
            """
        let entries = AltSvcFile.entries(in: Data(text.utf8), for: AltSvcOrigin(host: "a.test", port: 443), now: now)
        #expect(entries.map(\.alternativePort) == [8443, 7443])
        #expect(entries.last?.expires == now.addingTimeInterval(AltSvcStore.maximumLifetime))
    }

    @Test func entriesAreCheckedAndCapped() throws {
        #expect(throws: CurlewError.self) {
            try AltSvcEntry(originHost: "a_b", originPort: 443, alternativeProtocol: .http2, alternativePort: 1, expires: Date())
        }
        #expect(throws: CurlewError.self) {
            try AltSvcEntry(originHost: "a.test", originPort: 0, alternativeProtocol: .http2, alternativePort: 1, expires: Date())
        }
        #expect(throws: CurlewError.self) {
            try AltSvcEntry(originHost: "a.test", originPort: 443, alternativeProtocol: .http2, alternativePort: 70_000, expires: Date())
        }
        let entry = try AltSvcEntry(
            originHost: "A.Test.", originPort: 443, alternativeProtocol: .http2, alternativePort: 8443, expires: .distantFuture)
        #expect(entry.originHost == "a.test")
        #expect(entry.expires.timeIntervalSinceNow <= AltSvcStore.maximumLifetime)
    }

    /// At most ``AltSvcStore/maximumAlternativesPerOrigin`` per origin (the soonest to lapse
    /// goes) and ``AltSvcStore/maximumEntries`` in all (the origins lapsing soonest go).
    @Test func theStoreHoldsAtMostItsLimits() throws {
        let store = AltSvcStore()
        let base = Date().addingTimeInterval(3600)
        for port in 1...(AltSvcStore.maximumAlternativesPerOrigin + 2) {
            store.insert(try AltSvcEntry(
                originHost: "a.test", originPort: 443, alternativeProtocol: .http2, alternativePort: port,
                expires: base.addingTimeInterval(TimeInterval(port))))
        }
        let ports = store.entries.map(\.alternativePort)
        #expect(ports.count == AltSvcStore.maximumAlternativesPerOrigin)
        #expect(!ports.contains(1) && !ports.contains(2), "the soonest to lapse go: \(ports)")

        let big = AltSvcStore()
        for index in 0..<(AltSvcStore.maximumEntries + 1) {
            big.insert(try AltSvcEntry(
                originHost: "h\(index).test", originPort: 443, alternativeProtocol: .http2, alternativePort: 8443,
                expires: base.addingTimeInterval(TimeInterval(index))))
        }
        let hosts = Set(big.entries.map(\.originHost))
        #expect(hosts.count == AltSvcStore.maximumEntries)
        #expect(!hosts.contains("h0.test") && hosts.contains("h1.test") && hosts.contains("h\(AltSvcStore.maximumEntries).test"))
    }

    @Test func removingEntriesForgetsOneOrigin() throws {
        let expires = Date().addingTimeInterval(3600)
        let store = AltSvcStore(entries: [
            try AltSvcEntry(originHost: "a.test", originPort: 443, alternativeProtocol: .http2, alternativePort: 8443, expires: expires),
            try AltSvcEntry(originHost: "a.test", originPort: 8443, alternativeProtocol: .http2, alternativePort: 9443, expires: expires),
        ])
        store.removeEntries(forHost: "A.TEST")
        #expect(store.entries.map(\.originPort) == [8443])
    }
}
