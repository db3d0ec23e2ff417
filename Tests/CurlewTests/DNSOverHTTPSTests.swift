@testable import Curlew
import Foundation
import Testing
import TestServer

/// ``DNSOverHTTPS``: its values, its curl flags, and the test server's DoH route checked against
/// dnslib. The lookups themselves run in ``DNSOverHTTPSLookupTests``, in a child process: libcurl
/// 7.88 sends its DoH lookups through the proxy the environment names, and the tests run with
/// proxy variables that point nowhere.
@Suite("DNS over HTTPS")
struct DNSOverHTTPSTests {
    /// Runs a Python program with dnslib; its standard output.
    private func python(_ program: String) async throws -> String {
        let result = try await ChildProcess.run("/usr/bin/env", ["python3", "-c", program])
        try #require(result.status == 0, "python3 with dnslib (scripts/install-deps.sh --tests): \(result.errorText)")
        return result.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    private func bytes(hex text: String) -> [UInt8] {
        var result: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex, let next = text.index(index, offsetBy: 2, limitedBy: text.endIndex) {
            result.append(UInt8(text[index..<next], radix: 16) ?? 0)
            index = next
        }
        return result
    }

    /// dnslib's query is read right; the server's answer is read right by dnslib; dnslib's
    /// answer (with compressed names) is read right.
    @Test func theTestServersDNSCodecAgreesWithDnslib() async throws {
        let query = bytes(hex: try await python("""
            import dnslib, sys
            q = dnslib.DNSRecord.question("curlew-doh.test", "AAAA")
            q.header.id = 0x1234
            sys.stdout.write(q.pack().hex())
            """))
        let decoded = try DNSMessage.decode(query)
        #expect(decoded.id == 0x1234)
        #expect(!decoded.isResponse)
        #expect(decoded.questions == [DNSMessage.Question(name: "curlew-doh.test", type: DNSMessage.typeAAAA)])

        let answer = DNSMessage(
            id: 0xBEEF, flags: 0x8180, questions: [DNSMessage.Question(name: "curlew-doh.test", type: 1)],
            answers: [
                DNSMessage.Record(name: "curlew-doh.test", type: 1, timeToLive: 60, data: [127, 0, 0, 1]),
                DNSMessage.Record(name: "curlew-doh.test", type: 1, timeToLive: 7, data: [10, 1, 2, 3]),
            ])
        let parsed = try await python("""
            import dnslib, sys
            r = dnslib.DNSRecord.parse(bytes.fromhex("\(hex(try answer.encoded()))"))
            print(r.header.id, r.header.qr, r.header.rcode, r.q.qname, dnslib.QTYPE[r.q.qtype])
            for a in r.rr: print(a.rname, dnslib.QTYPE[a.rtype], a.ttl, a.rdata)
            """)
        #expect(parsed == """
            48879 1 0 curlew-doh.test. A
            curlew-doh.test. A 60 127.0.0.1
            curlew-doh.test. A 7 10.1.2.3
            """)

        let compressed = bytes(hex: try await python("""
            import dnslib, sys
            q = dnslib.DNSRecord.question("a.curlew-doh.test", "AAAA")
            r = q.reply()
            r.add_answer(dnslib.RR("a.curlew-doh.test", dnslib.QTYPE.AAAA, rdata=dnslib.AAAA("::1"), ttl=30))
            r.header.rcode = 0
            sys.stdout.write(r.pack().hex())
            """))
        let reply = try DNSMessage.decode(compressed)
        #expect(reply.isResponse && reply.responseCode == 0)
        #expect(reply.answers.map(\.name) == ["a.curlew-doh.test"])
        #expect(reply.answers.first?.data == DNSMessage.addressBytes("::1"))
        #expect(reply.answers.first?.timeToLive == 30)
        // A pointer loop and a message cut short are errors, not hangs or crashes.
        #expect(throws: TestServerError.self) { try DNSMessage.decode([0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xC0, 12, 0, 1, 0, 1]) }
        #expect(throws: TestServerError.self) { try DNSMessage.decode(Array(compressed.prefix(20))) }
    }

    /// The route over plain HTTP (the lookups use it over TLS): GET with `?dns=`, POST with a
    /// body, an unknown name, a malformed query.
    @Test func theRouteAnswersGETAndPOSTQueries() async throws {
        let server = try await TestServer.start()
        let session = Session(configuration: { var c = SessionConfiguration(); c.proxy = .direct; return c }())
        defer { Task { await session.shutdown(); try? await server.shutdown() } }
        server.setDNSAddresses(["127.0.0.1", "::1"], for: "curlew-doh.test")
        let query = try DNSMessage(id: 7, flags: 0x0100, questions: [.init(name: "curlew-doh.test", type: 1)]).encoded()
        let base64URL = Data(query).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let viaGET = try DNSMessage.decode(Array(try await session.request(server.url("/dns-query?dns=\(base64URL)")).validate().data()))
        #expect(viaGET.id == 7 && viaGET.responseCode == 0)
        #expect(viaGET.answers.map(\.data) == [[127, 0, 0, 1]])
        let aaaa = try DNSMessage(id: 8, flags: 0x0100, questions: [.init(name: "CURLEW-DOH.test", type: 28)]).encoded()
        let viaPOST = try DNSMessage.decode(Array(try await session.request(
            server.url("/dns-query"), method: .post, headers: ["Content-Type": "application/dns-message"],
            body: .data(Data(aaaa))).validate().data()))
        #expect(viaPOST.answers.map { $0.data } == [try #require(DNSMessage.addressBytes("::1"))])
        let unknown = try DNSMessage(id: 9, flags: 0x0100, questions: [.init(name: "nowhere.test", type: 1)]).encoded()
        let nx = try DNSMessage.decode(Array(try await session.request(
            server.url("/dns-query"), method: .post, headers: ["Content-Type": "application/dns-message"],
            body: .data(Data(unknown))).validate().data()))
        #expect(nx.responseCode == 3 && nx.answers.isEmpty)
        let malformed = try await session.request(server.url("/dns-query?dns=AAAA")).string()
        #expect(malformed.hasPrefix("not a DNS message"), "\(malformed)")
        #expect(server.dnsQueries == [
            DNSQueryRecord(name: "curlew-doh.test", type: 1, method: "GET"),
            DNSQueryRecord(name: "CURLEW-DOH.test", type: 28, method: "POST"),
            DNSQueryRecord(name: "nowhere.test", type: 1, method: "POST"),
        ])
    }

    @Test func theServerAndItsTrustArePrintedAsCurlFlags() {
        for (trust, flag) in [(DNSOverHTTPSTrust.verified, ""), (.verifiedWithOCSPStapling, " --doh-cert-status"),
                              (.insecureNoEvaluation(reason: "test"), " --doh-insecure")] {
            var configuration = SessionConfiguration()
            configuration.proxy = .direct
            configuration.network.dnsOverHTTPS = DNSOverHTTPS(url: URL(string: "https://127.0.0.1:8443/dns-query")!, trust: trust)
            let session = Session(configuration: configuration)
            let command = session.request("http://curlew-doh.test/get").cURLDescription()
            #expect(command.contains("--doh-url 'https://127.0.0.1:8443/dns-query'\(flag)"), "\(command)")
            #expect(command.contains("--doh-") == true)
            Task { await session.shutdown() }
        }
        let plain = Session(configuration: SessionConfiguration())
        #expect(!plain.request("http://curlew-doh.test/get").cURLDescription().contains("--doh"))
        Task { await plain.shutdown() }
    }

    /// Each bad value fails with `invalidRequest` before any connection (the DoH server is the
    /// test server itself: it sees neither a lookup nor the request).
    @Test func badValuesAreRefusedBeforeAnyConnection() async throws {
        let server = try await TestServer.start()
        defer { Task { try? await server.shutdown() } }
        let bad: [(String, DNSOverHTTPS)] = [
            ("plain http", DNSOverHTTPS(url: server.url("/dns-query"))),
            ("no host", DNSOverHTTPS(url: URL(string: "https:///dns-query")!)),
            ("credentials", DNSOverHTTPS(url: URL(string: "https://user:secret@127.0.0.1:\(server.port)/dns-query")!)),
            ("other scheme", DNSOverHTTPS(url: URL(string: "ftp://127.0.0.1/dns-query")!)),
            ("no reason", DNSOverHTTPS(url: URL(string: "https://127.0.0.1:\(server.port)/dns-query")!, trust: .insecureNoEvaluation(reason: ""))),
        ]
        for (name, doh) in bad {
            var configuration = SessionConfiguration()
            configuration.proxy = .direct
            configuration.network.dnsOverHTTPS = doh
            let session = Session(configuration: configuration)
            do {
                _ = try await session.request("http://curlew-doh.test:\(server.port)/get").data()
                Issue.record("\(name): accepted")
            } catch {
                #expect(error.kind == .invalidRequest, "\(name): \(error)")
                #expect(error.message.contains("dnsOverHTTPS"), "\(name): \(error)")
                #expect(!error.description.contains("secret"), "\(name): \(error)")
            }
            await session.shutdown()
        }
        #expect(server.connectionCount == 0)
    }

    /// libcurl sends the lookups through the environment's proxy: a session that would not
    /// send its own requests there is refused; one that would, or a host in `no_proxy`, is not.
    @Test func aDoHServerTheEnvironmentsProxyWouldCarryIsRefusedUnlessTheSessionUsesItToo() async throws {
        let remote = DNSOverHTTPS(url: URL(string: "https://dns.example/dns-query")!)
        let loopback = DNSOverHTTPS(url: URL(string: "https://127.0.0.1:8443/dns-query")!)
        let proxied = ["https_proxy": "http://proxy.example:3128"]
        #expect(remote.environmentProxyProblem(sessionProxy: .direct, environment: [:]) == nil)
        #expect(remote.environmentProxyProblem(sessionProxy: .direct, environment: ["http_proxy": "http://p:1"]) == nil)
        let problem = try #require(remote.environmentProxyProblem(sessionProxy: .direct, environment: proxied))
        #expect(problem.contains("https_proxy") && problem.contains("no_proxy"), "\(problem)")
        #expect(remote.environmentProxyProblem(sessionProxy: .direct, environment: ["ALL_PROXY": "socks5://p:1"]) != nil)
        #expect(remote.environmentProxyProblem(sessionProxy: .environment, environment: proxied) == nil)
        #expect(loopback.environmentProxyProblem(sessionProxy: .environment, environment: proxied) != nil)
        for noProxy in ["dns.example", ".example", "example", "a.test, DNS.example ", "*"] {
            #expect(remote.environmentProxyProblem(
                sessionProxy: .direct, environment: proxied.merging(["no_proxy": noProxy]) { $1 }) == nil, "\(noProxy)")
        }
        for noProxy in ["ns.example", "example.com", "10.0.0.0/8", ""] {
            #expect(remote.environmentProxyProblem(
                sessionProxy: .direct, environment: proxied.merging(["NO_PROXY": noProxy]) { $1 }) != nil, "\(noProxy)")
        }
        #expect(loopback.environmentProxyProblem(
            sessionProxy: .direct, environment: proxied.merging(["no_proxy": "127.0.0.1"]) { $1 }) == nil)
        // This process's own environment, as a session reads it.
        var configuration = SessionConfiguration()
        configuration.proxy = .direct
        configuration.network.dnsOverHTTPS = loopback
        let transport = Session.transportConfiguration(configuration, environment: proxied)
        #expect(transport.network.problem?.contains("environment's proxy") == true)
    }

    /// The lookups, in a child process without proxy variables (see the type's comment).
    @Test func theLookupsWorkInAProcessWithoutProxyVariables() async throws {
        let result = try await ChildProcessTestRun.run(suite: "DNSOverHTTPSLookupTests", childSuite: DNSOverHTTPSLookupTests.childSuite)
        #expect(result.passed == DNSOverHTTPSLookupTests.testCount, "\(result.output)")
    }
}
