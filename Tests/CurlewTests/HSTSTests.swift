import Curlew
import Foundation
import Testing
import TestServer

/// HSTS (RFC 6797) and HTTPS-only sessions against nginx: what a verified HTTPS response
/// teaches, what a plain or unverified one does not, and how requests and redirect hops are
/// moved to HTTPS or refused.
@Suite("HSTS and HTTPS-only against nginx", .enabled(if: NginxServer.isAvailable, "nginx is not installed"))
struct HSTSTests {
    private func withNginx(_ body: (NginxServer) async throws -> Void) async throws {
        let nginx = try await NginxServer.start(plainHTTP: true)
        do {
            try await body(nginx)
        } catch {
            await nginx.stop()
            throw error
        }
        await nginx.stop()
    }

    private func session(_ nginx: NginxServer, hsts: HSTSStore?, httpsOnly: Bool = false, trust: TrustPolicy? = nil) -> Session {
        var configuration = SessionConfiguration()
        configuration.trust = TrustConfiguration(default: trust ?? .certificateAuthorities([.file(nginx.caCertificatePath)]))
        configuration.hsts = hsts
        configuration.httpsOnly = httpsOnly
        return Session(configuration: configuration)
    }

    private func url(_ text: String) throws -> URL { try #require(URL(string: text)) }

    /// A verified HTTPS answer with the header teaches the host: the next `http://` request to
    /// it (at nginx's TLS port) goes over HTTPS. Without HSTS the same request reaches the TLS
    /// port in plain text, which nginx answers with a 400.
    @Test func aVerifiedHeaderMovesLaterPlainRequestsToHTTPS() async throws {
        try await withNginx { nginx in
            let store = HSTSStore()
            let session = session(nginx, hsts: store)
            let plainURL = try url("http://localhost:\(nginx.port)/scheme")

            let before = try await session.request(plainURL).response
            #expect(before.status.code == 400, "the control: plain HTTP at the TLS port")
            #expect(try await session.request(url("https://localhost:\(nginx.port)/hsts")).validate().string() == "https\n")
            #expect(store.requiresHTTPS(forHost: "localhost"))
            let upgraded = try await session.request(plainURL).validate().response
            #expect(String(decoding: upgraded.value, as: UTF8.self) == "https\n")
            #expect(upgraded.request.url.absoluteString == "https://localhost:\(nginx.port)/scheme")
            await session.shutdown()
        }
    }

    /// RFC 6797 §8.1: the header over plain HTTP, over a connection whose chain was not
    /// verified, or from an IP address teaches nothing; `max-age=0` forgets the host.
    @Test func onlyAVerifiedNamedHostTeachesAndMaxAgeZeroForgets() async throws {
        try await withNginx { nginx in
            let plainPort = try #require(nginx.plainPort)
            let store = HSTSStore()
            let verified = session(nginx, hsts: store)
            _ = try await verified.request(url("http://localhost:\(plainPort)/hsts")).validate().string()
            #expect(store.entries.isEmpty, "a header over plain HTTP")
            _ = try await verified.request(url("https://127.0.0.1:\(nginx.port)/hsts")).validate().string()
            #expect(store.entries.isEmpty, "a header from an IP address")

            let unverified = session(nginx, hsts: store, trust: .insecureNoEvaluation(reason: "test: an unverified connection"))
            _ = try await unverified.request(url("https://localhost:\(nginx.port)/hsts")).validate().string()
            #expect(store.entries.isEmpty, "a header over a connection whose chain was not verified")
            await unverified.shutdown()

            _ = try await verified.request(url("https://localhost:\(nginx.port)/hsts-subdomains")).validate().string()
            let learned = try #require(store.entries.first)
            #expect(learned.host == "localhost" && learned.includesSubdomains)
            let lifetime = try #require(learned.expires).timeIntervalSinceNow
            #expect(lifetime > 3000 && lifetime <= 3600, "max-age=3600, not \(lifetime)")
            _ = try await verified.request(url("https://localhost:\(nginx.port)/hsts-clear")).validate().string()
            #expect(store.entries.isEmpty, "max-age=0 forgets the host")
            await verified.shutdown()
        }
    }

    /// A redirect hop to a known host's `http://` URL goes over HTTPS, as the first hop does.
    @Test func aRedirectHopToAKnownHostIsUpgraded() async throws {
        try await withNginx { nginx in
            let store = HSTSStore(entries: [try HSTSEntry(host: "localhost")])
            let session = session(nginx, hsts: store)
            let response = try await session.request(url("https://localhost:\(nginx.port)/redirect-to-plain")).validate().response
            #expect(String(decoding: response.value, as: UTF8.self) == "https\n")
            #expect(response.request.url.absoluteString == "https://localhost:\(nginx.port)/scheme")

            let without = self.session(nginx, hsts: nil)
            let control = try await without.request(url("https://localhost:\(nginx.port)/redirect-to-plain")).response
            #expect(control.status.code == 400, "the control: the hop went in plain text to the TLS port")
            await without.shutdown()
            await session.shutdown()
        }
    }

    /// HTTPS-only refuses a plain-HTTP request and a plain-HTTP redirect hop before they
    /// connect (nginx's plain server never sees them), and lets HSTS upgrade what it can first.
    @Test func httpsOnlyRefusesPlainHopsBeforeConnecting() async throws {
        try await withNginx { nginx in
            let plainPort = try #require(nginx.plainPort)
            let session = session(nginx, hsts: nil, httpsOnly: true)
            let printed = try session.request(url("http://localhost:\(plainPort)/scheme")).cURLDescription()
            #expect(printed.contains("--proto '=https' --proto-redir '=https'"), "\(printed)")
            let refused = await #expect(throws: CurlewError.self) {
                try await session.request(url("http://localhost:\(plainPort)/scheme")).response
            }
            #expect(refused?.kind == .unsupportedScheme)
            #expect(refused?.curlCode == nil, "refused before libcurl had the request")
            let redirected = await #expect(throws: CurlewError.self) {
                try await session.request(url("https://localhost:\(nginx.port)/redirect-to-plain")).response
            }
            #expect(redirected?.kind == .unsupportedScheme)
            #expect(redirected?.responseHead?.status.code == 302, "the error carries the redirect that was refused")
            #expect(try await session.request(url("https://localhost:\(nginx.port)/scheme")).validate().string() == "https\n")
            await session.shutdown()

            let upgrading = self.session(nginx, hsts: HSTSStore(entries: [try HSTSEntry(host: "localhost")]), httpsOnly: true)
            #expect(try await upgrading.request(url("http://localhost:\(nginx.port)/scheme")).validate().string() == "https\n")
            await upgrading.shutdown()
        }
    }

    /// A store with a file writes what it learned (mode 0600, curl's format) from the
    /// requesting task, and a new store, as in the next run, reads it back.
    @Test func aStoreFileOutlivesTheSession() async throws {
        try await withNginx { nginx in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-hsts-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = folder.appendingPathComponent("hsts.txt")
            let store = try HSTSStore(fileURL: file)
            let session = session(nginx, hsts: store)
            _ = try await session.request(url("https://localhost:\(nginx.port)/hsts-subdomains")).validate().string()
            await session.shutdown()

            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(text.contains("\n.localhost \""), "\(text)")
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            let nextRun = try HSTSStore(fileURL: file)
            #expect(nextRun.requiresHTTPS(forHost: "api.localhost"), "includeSubDomains survives the file")
            let printed = try session.request(url("http://localhost:\(nginx.port)/scheme")).cURLDescription()
            #expect(printed.contains("--hsts '\(file.path)'"), "curl reads the same file: \(printed)")
        }
    }
}
