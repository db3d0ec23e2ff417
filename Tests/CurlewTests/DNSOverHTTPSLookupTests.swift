@testable import Curlew
import Foundation
import Testing
import TestServer

/// Lookups through a DNS-over-HTTPS server: the test server's `/dns-query` route behind
/// stunnel (TLS with a certificate of a throwaway CA). Run in a child process without proxy
/// variables by ``DNSOverHTTPSTests/theLookupsWorkInAProcessWithoutProxyVariables()``, and
/// skipped in every other process.
@Suite("DNS over HTTPS lookups (child process)", .enabled(if: ChildProcessTestRun.isChild("dns-over-https")))
struct DNSOverHTTPSLookupTests {
    static let childSuite = "dns-over-https"
    /// How many tests the child must report passed.
    static let testCount = 5

    /// A test server that also answers DoH, TLS in front of it, and the CA that signed the TLS
    /// certificate; stopped by ``stop()``.
    private struct Bed {
        let server: TestServer
        let front: TLSFront
        let certificates: TestCertificates
        let directory: URL

        var dohURL: URL { URL(string: "https://127.0.0.1:\(front.port)/dns-query")! }

        static func start() async throws -> Bed {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-doh-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let certificates = try await TestCertificates.generate(in: directory)
            let server = try await TestServer.start()
            let front = try await TLSFront.start(
                forwardingTo: server.port, certificate: certificates.certificateChainPath, key: certificates.privateKeyPath)
            return Bed(server: server, front: front, certificates: certificates, directory: directory)
        }

        func session(
            trust: TrustPolicy, doh: DNSOverHTTPSTrust = .verified, _ change: (inout NetworkControls) -> Void = { _ in }
        ) -> Session {
            var configuration = SessionConfiguration()
            configuration.proxy = .direct
            configuration.trust = TrustConfiguration(default: trust)
            configuration.network.dnsOverHTTPS = DNSOverHTTPS(url: dohURL, trust: doh)
            change(&configuration.network)
            return Session(configuration: configuration)
        }

        var trustingTheCA: TrustPolicy { .systemTrust(adding: [.file(certificates.caCertificatePath)]) }

        func stop() async {
            await front.stop()
            try? await server.shutdown()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test func aNameOnlyTheDoHServerKnowsResolvesThroughItAndTheRequestArrives() async throws {
        let bed = try await Bed.start()
        let session = bed.session(trust: bed.trustingTheCA)
        defer { Task { await session.shutdown(); await bed.stop() } }
        #expect(ProcessInfo.processInfo.environment["https_proxy"] == nil)
        bed.server.setDNSAddresses(["127.0.0.1"], for: "curlew-doh.test")
        let request = session.request("http://curlew-doh.test:\(bed.server.port)/anything/doh")
        let echo = try Fixtures.echo(try await request.validate().data())
        #expect(echo.headerLines(named: "host") == ["curlew-doh.test:\(bed.server.port)"])
        #expect(bed.server.requestCount(path: "/anything/doh") == 1)
        #expect(bed.server.dnsQueries.contains(DNSQueryRecord(name: "curlew-doh.test", type: DNSMessage.typeA, method: "POST")))
        // The printed command does the same with the curl tool.
        let command = request.cURLDescription()
        #expect(command.contains("--doh-url '\(bed.dohURL.absoluteString)'"), "\(command)")
        let shell = try await ChildProcess.run("/bin/sh", ["-c", command + " --silent --fail"])
        #expect(shell.status == 0, "\(shell.errorText) \(command)")
        #expect(bed.server.requestCount(path: "/anything/doh") == 2)
    }

    /// The DoH server's certificate is checked against the request's trust policy: the
    /// system's authorities do not know the test CA.
    @Test func anUntrustedDoHServerFailsClearlyAndNoRequestLeaves() async throws {
        let bed = try await Bed.start()
        let session = bed.session(trust: .systemTrust)
        defer { Task { await session.shutdown(); await bed.stop() } }
        bed.server.setDNSAddresses(["127.0.0.1"], for: "curlew-doh.test")
        let error = await failure(session.request("http://curlew-doh.test:\(bed.server.port)/anything/untrusted"))
        #expect(error?.kind == .hostNotFound, "\(String(describing: error))")
        #expect(error?.message.contains("DNS-over-HTTPS server \(bed.dohURL.absoluteString)") == true, "\(String(describing: error))")
        #expect(bed.server.dnsQueries.isEmpty)
        #expect(bed.server.requestCount(path: "/anything/untrusted") == 0)
    }

    @Test func requiringAStapledOCSPResponseFailsWithoutOne() async throws {
        let bed = try await Bed.start()
        let session = bed.session(trust: bed.trustingTheCA, doh: .verifiedWithOCSPStapling)
        defer { Task { await session.shutdown(); await bed.stop() } }
        bed.server.setDNSAddresses(["127.0.0.1"], for: "curlew-doh.test")
        let error = await failure(session.request("http://curlew-doh.test:\(bed.server.port)/anything/ocsp"))
        #expect(error?.kind == .hostNotFound, "\(String(describing: error))")
        #expect(bed.server.dnsQueries.isEmpty)
        #expect(bed.server.requestCount(path: "/anything/ocsp") == 0)
    }

    @Test func insecureDoHTrustChecksNothing() async throws {
        let bed = try await Bed.start()
        let session = bed.session(trust: .systemTrust, doh: .insecureNoEvaluation(reason: "test CA unknown to the system"))
        defer { Task { await session.shutdown(); await bed.stop() } }
        bed.server.setDNSAddresses(["127.0.0.1"], for: "curlew-doh.test")
        _ = try await session.request("http://curlew-doh.test:\(bed.server.port)/anything/insecure").validate().data()
        #expect(bed.server.requestCount(path: "/anything/insecure") == 1)
        #expect(session.request("http://curlew-doh.test/").cURLDescription().contains("--doh-insecure"))
    }

    /// The DNS cache lifetime, seen at the DoH server: with libcurl's 60 s the second request
    /// uses the first answer (one query, and it reaches the server although the name now
    /// points elsewhere); with zero it asks again and sees the changed answer (nothing listens
    /// at 127.0.0.3). Each response closes its connection, so the second request must connect.
    @Test func aDNSCacheLifetimeOfZeroAsksAgainAndSeesTheChangedAnswer() async throws {
        let bed = try await Bed.start()
        defer { Task { await bed.stop() } }
        for lifetime in [nil, Duration.zero] {
            let name = lifetime == nil ? "cached.curlew-doh.test" : "uncached.curlew-doh.test"
            let session = bed.session(trust: bed.trustingTheCA) { $0.dnsCacheLifetime = lifetime }
            bed.server.setDNSAddresses(["127.0.0.1"], for: name)
            let url = "http://\(name):\(bed.server.port)/anything/cache"
            let closing: RequestHeaders = ["X-Test-Response-Header": "Connection: close"]
            _ = try await session.request(url, headers: closing).validate().data()
            bed.server.setDNSAddresses(["127.0.0.3"], for: name)
            let second = await session.request(url, headers: closing).validate().dataResult()
            let queries = bed.server.dnsQueries.filter { $0.name == name && $0.type == DNSMessage.typeA }
            if lifetime == nil {
                #expect(throws: Never.self) { try second.get() }
                #expect(queries.count == 1)
            } else {
                #expect(throws: CurlewError.self) { try second.get() }
                #expect(queries.count == 2)
            }
            await session.shutdown()
        }
        #expect(bed.server.requestCount(path: "/anything/cache") == 3)
    }
}
