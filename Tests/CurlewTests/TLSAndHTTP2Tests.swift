import Curlew
import Foundation
import Testing
import TestServer

/// TLS, pinning and HTTP/2 against a local nginx with a certificate generated for the run.
@Suite(
    "TLS and HTTP/2 against nginx", .enabled(if: NginxServer.isAvailable, "nginx is not installed"),
    .nginx(fixedResponses: ["/kib": String(repeating: "x", count: 1024)]))
struct TLSAndHTTP2Tests {

    private func configuration(_ nginx: NginxServer, pins: [String] = []) -> SessionConfiguration {
        var configuration = SessionConfiguration()
        let authorities = TrustPolicy.certificateAuthorities([.file(nginx.caCertificatePath)])
        // The test CA is not the system's, so the pinned key alone identifies the server.
        configuration.trust = TrustConfiguration(default: pins.isEmpty ? authorities : .publicKeys(pins, validateChain: false))
        return configuration
    }

    @Test func http2OverTLSWithMultiplexing() async throws {
        let nginx = try NginxSuiteScope.server()
        let session = Session(configuration: configuration(nginx))
        let first = try await session.request(nginx.url("/kib")).validate().response
        #expect(first.metrics.httpVersion == .http2)
        #expect(first.value.count == 1024)
        #expect(first.metrics.tlsHandshake > .zero)
        let responses = try await withThrowingTaskGroup(of: Response<Data>.self) { group in
            for _ in 0..<40 { group.addTask { try await session.request(nginx.url("/kib")).response } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(responses.allSatisfy { $0.metrics.httpVersion == .http2 && $0.value.count == 1024 })
        // Multiplexed over the first connection: no new connection was opened.
        #expect(responses.filter { !$0.metrics.connectionReused }.count == 0)
        await session.shutdown()
    }

    @Test func http1CanBeForced() async throws {
        let nginx = try NginxSuiteScope.server()
        let session = Session(configuration: configuration(nginx))
        var options = RequestOptions()
        options.httpVersion = .http1_1
        let response = try await session.request(nginx.url("/kib"), options: options).response
        #expect(response.metrics.httpVersion == .http1_1)
        await session.shutdown()
    }

    @Test func untrustedCertificateIsATLSFailure() async throws {
        let nginx = try NginxSuiteScope.server()
        let session = Session()
        do {
            _ = try await session.request(nginx.url("/kib")).data()
            Issue.record("expected a TLS failure")
        } catch {
            #expect(error.kind == .tlsFailure)
            #expect(error.curlCode == 60)
        }
        await session.shutdown()
    }

    @Test func pinnedKeyMustMatch() async throws {
        let nginx = try NginxSuiteScope.server()
        let good = Session(configuration: configuration(nginx, pins: [nginx.publicKeyPin]))
        #expect(try await good.request(nginx.url("/kib")).data().count == 1024)
        await good.shutdown()

        let wrongPin = "sha256//" + Data(repeating: 0xAB, count: 32).base64EncodedString()
        let bad = Session(configuration: configuration(nginx, pins: [wrongPin]))
        do {
            _ = try await bad.request(nginx.url("/kib")).data()
            Issue.record("expected a pinning failure")
        } catch {
            #expect(error.kind == .untrustedServer)
            #expect(error.message.contains(nginx.publicKeyPin), "the message shows the key to pin")
        }
        await bad.shutdown()

        let malformed = Session(configuration: configuration(nginx, pins: ["not-a-pin"]))
        do {
            _ = try await malformed.request(nginx.url("/kib")).data()
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .invalidRequest)
        }
        await malformed.shutdown()
    }
}
