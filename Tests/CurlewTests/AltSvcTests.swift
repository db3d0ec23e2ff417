import Curlew
import Foundation
import Testing
import TestServer

/// Alt-Svc (RFC 7838; libcurl's `CURLOPT_ALTSVC`) against nginx: an HTTPS origin speaking
/// HTTP/1.1 (``NginxServer/http1Port``) advertises nginx's HTTP/2 port as an alternative, and
/// the next request goes there. Each answer names the port and protocol it came over.
@Suite("Alt-Svc against nginx", .enabled(if: NginxServer.isAvailable, "nginx is not installed"))
struct AltSvcTests {
    private func withNginx(_ body: (NginxServer, Int) async throws -> Void) async throws {
        let nginx = try await NginxServer.start(plainHTTP: true, http1Origin: true)
        do {
            try await body(nginx, try #require(nginx.http1Port))
        } catch {
            await nginx.stop()
            throw error
        }
        await nginx.stop()
    }

    private func session(_ nginx: NginxServer, _ services: AlternativeServices?, trust: TrustPolicy? = nil) -> Session {
        var configuration = SessionConfiguration()
        configuration.trust = TrustConfiguration(default: trust ?? .certificateAuthorities([.file(nginx.caCertificatePath)]))
        configuration.alternativeServices = services
        return Session(configuration: configuration)
    }

    private func url(_ text: String) throws -> URL { try #require(URL(string: text)) }

    /// What a GET answered: the body (`PORT PROTOCOL`), and the port and version libcurl measured.
    private func fetch(_ session: Session, _ text: String) async throws -> (body: String, port: Int?, version: HTTPVersion) {
        let response = try await session.request(url(text)).validate().response
        return (String(decoding: response.value, as: UTF8.self), response.metrics.remotePort, response.metrics.httpVersion)
    }

    /// The first request goes over HTTP/1.1 to the origin's port and learns the alternative;
    /// the next one to the same origin goes over HTTP/2 to the alternative's port, and the
    /// response still names the origin's URL.
    @Test func anAdvertisedAlternativeCarriesTheNextRequestOverHTTP2() async throws {
        try await withNginx { nginx, origin in
            let store = AltSvcStore()
            let session = session(nginx, AlternativeServices(store: store))
            let first = try await fetch(session, "https://localhost:\(origin)/alt-svc")
            #expect(first.body == "\(origin) HTTP/1.1\n" && first.port == origin && first.version == .http1_1)
            let entry = try #require(store.entries.first)
            #expect(store.entries.count == 1)
            #expect(entry.originHost == "localhost" && entry.originPort == origin && entry.originProtocol == .http1)
            #expect(entry.alternativeProtocol == .http2 && entry.alternativePort == nginx.port)
            let lifetime = entry.expires.timeIntervalSinceNow
            #expect(lifetime > 3000 && lifetime <= 3600, "ma=3600, not \(lifetime)")

            let next = try await session.request(url("https://localhost:\(origin)/protocol")).validate().response
            #expect(String(decoding: next.value, as: UTF8.self) == "\(nginx.port) HTTP/2.0\n")
            #expect(next.metrics.remotePort == nginx.port && next.metrics.httpVersion == .http2)
            #expect(next.request.url.absoluteString == "https://localhost:\(origin)/protocol")
            await session.shutdown()
        }
    }

    /// Without alternative services the same two requests both go to the origin over HTTP/1.1.
    @Test func withoutAltSvcNothingChanges() async throws {
        try await withNginx { nginx, origin in
            let session = session(nginx, nil)
            for path in ["/alt-svc", "/protocol"] {
                let answer = try await fetch(session, "https://localhost:\(origin)\(path)")
                #expect(answer.body == "\(origin) HTTP/1.1\n" && answer.port == origin && answer.version == .http1_1)
            }
            let printed = try session.request(url("https://localhost:\(origin)/protocol")).cURLDescription()
            #expect(!printed.contains("--alt-svc"), "\(printed)")
            await session.shutdown()
        }
    }

    /// A field teaches nothing over plain HTTP, over a connection whose chain was not verified,
    /// with `updatesStore` off, or for an alternative on another host; `ma=` is capped at
    /// seven days, and `clear` forgets the origin's alternatives.
    @Test func onlyAVerifiedOriginTeachesAboutItsOwnHost() async throws {
        try await withNginx { nginx, origin in
            let plainPort = try #require(nginx.plainPort)
            let store = AltSvcStore()
            let verified = session(nginx, AlternativeServices(store: store))
            _ = try await fetch(verified, "http://localhost:\(plainPort)/alt-svc")
            #expect(store.entries.isEmpty, "a field over plain HTTP")
            _ = try await fetch(verified, "https://localhost:\(origin)/alt-svc-elsewhere")
            #expect(store.entries.isEmpty, "an alternative on another host")
            let stays = try await fetch(verified, "https://localhost:\(origin)/protocol")
            #expect(stays.port == origin, "nothing staged from the other host's field")

            let unverified = session(
                nginx, AlternativeServices(store: store), trust: .insecureNoEvaluation(reason: "test: an unverified connection"))
            _ = try await fetch(unverified, "https://localhost:\(origin)/alt-svc")
            #expect(store.entries.isEmpty, "a field over a connection whose chain was not verified")
            await unverified.shutdown()
            let readOnly = session(nginx, AlternativeServices(store: store, updatesStore: false))
            _ = try await fetch(readOnly, "https://localhost:\(origin)/alt-svc")
            #expect(store.entries.isEmpty, "updatesStore off")
            let printed = try readOnly.request(url("https://localhost:\(origin)/protocol")).cURLDescription()
            #expect(printed.contains("--alt-svc ''") && printed.contains("CURLALTSVC_READONLYFILE"), "\(printed)")
            await readOnly.shutdown()

            _ = try await fetch(verified, "https://localhost:\(origin)/alt-svc-forever")
            let lifetime = try #require(store.entries.first).expires.timeIntervalSinceNow
            #expect(lifetime > AltSvcStore.maximumLifetime - 600 && lifetime <= AltSvcStore.maximumLifetime, "\(lifetime)")
            let cleared = try await fetch(verified, "https://localhost:\(origin)/alt-svc-clear")
            #expect(cleared.port == nginx.port, "sent to the alternative, which answers clear")
            #expect(store.entries.isEmpty, "clear forgets the origin's alternatives")
            #expect(try await fetch(verified, "https://localhost:\(origin)/protocol").port == origin)
            await verified.shutdown()
        }
    }

    /// Pooled handles never keep libcurl's cache: what the store forgets, the next request of
    /// the same session forgets too. A session with a store of its own learns nothing from
    /// another session's; one that shares the store uses what it learned.
    @Test func sessionsShareEntriesOnlyThroughTheStore() async throws {
        try await withNginx { nginx, origin in
            let store = AltSvcStore()
            let learner = session(nginx, AlternativeServices(store: store))
            _ = try await fetch(learner, "https://localhost:\(origin)/alt-svc")
            let other = session(nginx, AlternativeServices(store: AltSvcStore()))
            #expect(try await fetch(other, "https://localhost:\(origin)/protocol").port == origin)
            let sharer = session(nginx, AlternativeServices(store: store))
            #expect(try await fetch(sharer, "https://localhost:\(origin)/protocol").port == nginx.port)

            #expect(try await fetch(learner, "https://localhost:\(origin)/protocol").port == nginx.port)
            store.removeAll()
            #expect(try await fetch(learner, "https://localhost:\(origin)/protocol").port == origin, "the handle forgot too")
            for finished in [learner, other, sharer] { await finished.shutdown() }
        }
    }

    /// An alternative that refuses connections is forgotten and the request goes to the origin.
    @Test func anUnreachableAlternativeFallsBackToTheOrigin() async throws {
        try await withNginx { nginx, origin in
            let dead = try RefusingPort.make()
            let store = AltSvcStore(entries: [
                try AltSvcEntry(
                    originHost: "localhost", originPort: origin, alternativeProtocol: .http2, alternativePort: dead,
                    expires: Date().addingTimeInterval(3600)),
            ])
            let session = session(nginx, AlternativeServices(store: store))
            let answer = try await fetch(session, "https://localhost:\(origin)/protocol")
            #expect(answer.port == origin && answer.version == .http1_1)
            #expect(store.entries.isEmpty, "the dead alternative is forgotten")
            await session.shutdown()
        }
    }

    /// A store with a file writes what it learned (mode 0600, curl's format), and a new store
    /// read from that file sends the first request of a new session to the alternative.
    @Test func aStoreFileRoundTripsIntoTheNextSession() async throws {
        try await withNginx { nginx, origin in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-altsvc-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = folder.appendingPathComponent("alt-svc.txt")
            let store = try AltSvcStore(fileURL: file)
            let first = session(nginx, AlternativeServices(store: store))
            let printed = try first.request(url("https://localhost:\(origin)/protocol")).cURLDescription()
            #expect(printed.contains("--alt-svc '\(file.path)'"), "\(printed)")
            _ = try await fetch(first, "https://localhost:\(origin)/alt-svc")
            await first.shutdown()

            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(text.contains("h1 localhost \(origin) h2 localhost \(nginx.port) \""), "\(text)")
            let mode = try #require(FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int)
            #expect(mode == 0o600)

            let reread = try AltSvcStore(fileURL: file)
            #expect(reread.entries == store.entries && reread.entries.count == 1)
            let next = session(nginx, AlternativeServices(store: reread))
            let answer = try await fetch(next, "https://localhost:\(origin)/protocol")
            #expect(answer.port == nginx.port && answer.version == .http2)
            await next.shutdown()
        }
    }

    /// Settings that cannot work fail before any connection.
    @Test func badSettingsAreInvalidRequests() async throws {
        try await withNginx { nginx, origin in
            for services in [
                AlternativeServices(store: AltSvcStore(), protocols: []),
                AlternativeServices(store: AltSvcStore(), protocols: [.http3]),
            ] {
                let session = session(nginx, services)
                let error = await #expect(throws: CurlewError.self) {
                    try await session.request(url("https://localhost:\(origin)/protocol")).response
                }
                #expect(error?.kind == .invalidRequest, "\(String(describing: error))")
                #expect(error?.curlCode == nil, "refused before libcurl had the request")
                await session.shutdown()
            }
            let missing = URL(fileURLWithPath: "/nonexistent-curlew-folder/alt-svc.txt")
            let error = #expect(throws: CurlewError.self) { try AltSvcStore(fileURL: missing) }
            #expect(error?.kind == .invalidRequest)
        }
    }
}
