import Curlew
import Foundation
import Synchronization
import Testing
import TestServer

/// The rules that decide which host may set a cookie and which hosts receive it, on the wire:
/// the server sets `Set-Cookie` fields of the test's choosing under real host names (over a
/// Unix socket, see ``NamedHosts``) and echoes the `Cookie` lines that arrive.
@Suite("Cookie storage rules on the wire: domains, Secure, prefixes, paths, sizes")
struct CookieHostRulesTests {
    @Test func aDomainThatIsAPublicSuffixIsRefused() async throws {
        let jar = CookieJar()
        try await withNamedHosts(storage: jar) { hosts in
            let set = try await hosts.set(
                ["wide=1; Domain=co.uk", "own=1; Domain=example.co.uk"], from: "http://shop.example.co.uk")
            #expect(set.map(\.name) == ["own"], "the server sent both; the parser refused one")
            try await hosts.set(["all=1; Domain=com"], from: "http://www.example.com")
            try await hosts.set(["pages=1; Domain=github.io"], from: "http://me.github.io")
            #expect(try await hosts.cookieLine(at: "http://other.co.uk/anything") == "")
            #expect(try await hosts.cookieLine(at: "http://victim.com/anything") == "")
            #expect(try await hosts.cookieLine(at: "http://you.github.io/anything") == "")
            #expect(try await hosts.cookieLine(at: "http://www.example.co.uk/anything") == "own=1")
        }
        #expect(Set(jar.allCookies.map(\.name)) == ["own"])
    }

    @Test func aDomainOfAnotherSiteOrOfASubdomainIsRefused() async throws {
        let jar = CookieJar()
        try await withNamedHosts(storage: jar) { hosts in
            try await hosts.set(["other=1; Domain=other.com", "child=1; Domain=shop.example.com"], from: "http://example.com")
            #expect(try await hosts.cookieLine(at: "http://other.com/anything") == "")
            #expect(try await hosts.cookieLine(at: "http://shop.example.com/anything") == "")
        }
        #expect(jar.allCookies.isEmpty)
    }

    @Test func aHostOnlyCookieIsNotSentToSubdomains() async throws {
        try await withNamedHosts(storage: CookieJar()) { hosts in
            try await hosts.set(["host=1", "wide=2; Domain=example.com"], from: "http://example.com")
            #expect(try await hosts.cookieLine(at: "http://example.com/anything") == "host=1; wide=2")
            #expect(try await hosts.cookieLine(at: "http://www.example.com/anything") == "wide=2")
            #expect(try await hosts.cookieLine(at: "http://notexample.com/anything") == "")
        }
    }

    /// An address names one host: `Domain=` the address keeps the cookie host-only (as
    /// browsers do), so a name that merely ends in the address does not get it.
    @Test func anAddressWithADomainAttributeStaysHostOnly() async throws {
        let jar = CookieJar()
        try await withNamedHosts(storage: jar) { hosts in
            try await hosts.set(["ip=1; Domain=10.1.2.3", "part=1; Domain=2.3"], from: "http://10.1.2.3")
            #expect(try await hosts.cookieLine(at: "http://10.1.2.3/anything") == "ip=1")
            #expect(try await hosts.cookieLine(at: "http://a.10.1.2.3/anything") == "")
            #expect(try await hosts.cookieLine(at: "http://9.10.2.3/anything") == "")
        }
        #expect(jar.allCookies.map(\.isHostOnly) == [true])
    }

    @Test func secureCookiesAreNeitherSetNorSentOverPlainHTTP() async throws {
        let jar = CookieJar()
        // As if set over https earlier.
        try jar.set(Cookie(name: "sid", value: "https-only", domain: "www.example.com", isSecure: true))
        try await withNamedHosts(storage: jar) { hosts in
            try await hosts.set(["new=1; Secure"], from: "http://www.example.com")
            #expect(try await hosts.cookieLine(at: "http://www.example.com/anything") == "")
            // A loopback host is a secure channel, as in browsers: no network can read it.
            try await hosts.set(["local=1; Secure"], from: "http://localhost")
            #expect(try await hosts.cookieLine(at: "http://localhost/anything") == "local=1")
        }
        #expect(Set(jar.allCookies.map(\.name)) == ["sid", "local"])
    }

    /// RFC 6265bis "leave secure cookies alone": whoever answers a plain-http request (anyone
    /// on the network path) cannot replace, delete or shadow a cookie an https site set Secure.
    @Test func anInsecureOriginCannotReplaceDeleteOrShadowASecureCookie() async throws {
        let jar = CookieJar()
        let secure = Cookie(name: "sid", value: "https-only", domain: "www.example.com", isSecure: true)
        try jar.set(secure)
        try await withNamedHosts(storage: jar) { hosts in
            let sent = try await hosts.set(
                ["sid=attacker; Path=/", "sid=; Max-Age=0", "other=1"], from: "http://www.example.com")
            #expect(sent.map(\.name) == ["sid", "sid", "other"], "the server did send them")
            try await hosts.set(["sid=parent; Domain=example.com"], from: "http://shop.example.com")
        }
        let stored = jar.cookies(for: URL(string: "https://www.example.com/")!)
        #expect(stored.map { "\($0.name)=\($0.value)" } == ["sid=https-only", "other=1"])
        #expect(stored.first?.isSecure == true)
    }

    /// The same rule for a storage of one's own, which Curlew asks for the host's cookies.
    @Test func anInsecureOriginCannotReplaceASecureCookieInAStorageOfOnesOwn() async throws {
        let storage = CookieStorageTests.ListStorage()
        storage.stored.withLock { $0 = [Cookie(name: "sid", value: "https-only", domain: "www.example.com", isSecure: true)] }
        try await withNamedHosts(storage: storage) { hosts in
            try await hosts.set(["sid=attacker", "sid=; Max-Age=0"], from: "http://www.example.com")
            try await hosts.set(["sid=fine; Secure"], from: "http://localhost")
        }
        let kept = storage.stored.withLock { $0.map { "\($0.domain) \($0.name)=\($0.value)" } }
        #expect(Set(kept) == ["www.example.com sid=https-only", "localhost sid=fine"])
    }

    @Test func prefixedCookiesFollowTheirRulesInAnyLetterCase() async throws {
        let jar = CookieJar()
        try await withNamedHosts(storage: jar) { hosts in
            try await hosts.set(["__Secure-a=1", "__SECURE-b=1", "__secure-c=1; Secure"], from: "http://www.example.com")
            try await hosts.set(
                ["__Host-d=1; Secure; Path=/; Domain=localhost", "__HOST-e=1; Secure; Path=/docs", "__host-f=1; Path=/",
                 "__Host-ok=1; Secure; Path=/", "__Secure-ok=1; Secure"],
                from: "http://localhost")
        }
        #expect(Set(jar.allCookies.map(\.name)) == ["__Host-ok", "__Secure-ok"])
    }

    @Test func aPathCoversItselfAndItsSubpathsOnly() async throws {
        try await withNamedHosts(storage: CookieJar()) { hosts in
            try await hosts.set(["p=1; Path=/anything/foo", "root=2; Path=/"], from: "http://www.example.com")
            #expect(try await hosts.cookieLine(at: "http://www.example.com/anything/foo") == "p=1; root=2")
            #expect(try await hosts.cookieLine(at: "http://www.example.com/anything/foo/bar") == "p=1; root=2")
            #expect(try await hosts.cookieLine(at: "http://www.example.com/anything/foobar") == "root=2")
            #expect(try await hosts.cookieLine(at: "http://www.example.com/anything") == "root=2")
        }
    }

    /// Past RFC 6265's limits a server cannot make one cookie big: a name and value of more
    /// than 4096 bytes are refused, an attribute value of more than 1024 bytes is ignored.
    @Test func oversizedCookiesAndAttributesAreNotStored() async throws {
        let jar = CookieJar()
        let long = "/" + String(repeating: "p", count: 2000)
        _ = try await withNamedHosts(storage: jar) { hosts in
            try await hosts.set(
                ["big=" + String(repeating: "v", count: 4094), "edge=" + String(repeating: "v", count: 4092),
                 "path=1; Path=\(long)", "domain=1; Domain=\(String(repeating: "d", count: 1100)).example.com"],
                from: "http://www.example.com")
        }
        let cookies = Dictionary(uniqueKeysWithValues: jar.allCookies.map { ($0.name, $0) })
        #expect(Set(cookies.keys) == ["edge", "path", "domain"])
        #expect(cookies["path"]?.path == "/", "the long Path was ignored: the default path")
        #expect(cookies["domain"]?.isHostOnly == true, "the long Domain was ignored: a host-only cookie")
        #expect(jar.allCookies.allSatisfy { $0.name.utf8.count + $0.value.utf8.count + $0.path.utf8.count + $0.domain.utf8.count <= 4096 + 1024 + 1024 })
    }

    /// A `Set-Cookie` with a control character sets nothing (RFC 6265bis §5.6; it would
    /// otherwise be stored with a space for the character); the other fields of the response
    /// still do, and the response itself is accepted. A NUL
    /// byte anywhere in the head fails the response as malformed, and nothing of it is stored.
    @Test func controlCharactersInASetCookieSetNothingAndANULFailsTheResponse() async throws {
        let controls = Array("Set-Cookie: bell=a".utf8) + [0x07] + Array("b\r\n".utf8)
            + Array("Set-Cookie: del=a".utf8) + [0x7F] + Array("b\r\n".utf8) + Array("Set-Cookie: ok=1\r\n".utf8)
        let (status, jar) = try await Self.answer(withFieldBytes: controls)
        #expect(try status.get() == 200)
        #expect(jar.allCookies.map(\.name) == ["ok"], "the fields with control characters set nothing")

        let nul = Array("Set-Cookie: ok=1\r\n".utf8) + Array("Set-Cookie: nul=a".utf8) + [0x00] + Array("b\r\n".utf8)
        let (failed, untouched) = try await Self.answer(withFieldBytes: nul)
        let error = #expect(throws: CurlewError.self) { try failed.get() }
        #expect(error?.kind == .malformedResponse, "\(String(describing: error))")
        #expect(untouched.allCookies.isEmpty, "nothing of a malformed head is stored")
    }

    /// Sends a 200 whose head holds `fieldBytes` to a session with a jar of its own; the
    /// outcome and the jar.
    static func answer(withFieldBytes fieldBytes: [UInt8]) async throws -> (Result<Int, any Error>, CookieJar) {
        let wire = try await WireServer.start()
        let jar = CookieJar()
        var configuration = SessionConfiguration()
        configuration.cookieStorage = jar
        let session = Session(configuration: configuration)
        async let answer = session.request(wire.url("/set")).response
        let connection = try await wire.nextConnection()
        _ = await connection.readHead()
        try await connection.send(Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n".utf8) + fieldBytes + Array("\r\nok".utf8))
        let outcome: Result<Int, any Error>
        do { outcome = .success(try await answer.status.code) } catch { outcome = .failure(error) }
        await connection.close()
        await session.shutdown()
        await wire.shutdown()
        return (outcome, jar)
    }
}
