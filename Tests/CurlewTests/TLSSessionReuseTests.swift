import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

/// libcurl's TLS session cache under trust policies, seen from nginx (`$ssl_session_reused`
/// at `/tls-session`: `r` resumed, `.` new). Every request closes its connection
/// (`Connection: close` over HTTP/1.1), so each makes a new one with a handshake.
@Suite(
    "TLS session reuse under trust policies", .enabled(if: NginxServer.isAvailable, "nginx is not installed"), .nginx())
struct TLSSessionReuseTests {
    private func session(_ policy: TrustPolicy) -> Session {
        var configuration = SessionConfiguration()
        configuration.trust = TrustConfiguration(default: policy)
        configuration.httpVersion = .http1_1
        return Session(configuration: configuration)
    }

    /// Whether nginx resumed the TLS session of a new connection for this request (to `host`,
    /// `localhost` unless given).
    private func resumed(_ session: Session, _ nginx: NginxServer, host: String = "localhost") async throws -> Bool {
        let url = try #require(URL(string: "https://\(host):\(nginx.port)/tls-session"))
        let text = try await session.request(url, headers: [.connection: "close"]).validate().string()
        #expect(text == "r\n" || text == ".\n", "\(text)")
        return text == "r\n"
    }

    /// Pins, fingerprints and custom evaluations check the chain OpenSSL verified, which a
    /// resumed session does not have: such a policy never resumes (nor stores) a session, so
    /// each connection's check sees the whole chain. Plain CA policies do resume.
    @Test func onlyPoliciesWithoutACheckAfterTheHandshakeResumeSessions() async throws {
        let nginx = try NginxSuiteScope.server()
        let authority = CertificateSource.file(nginx.caCertificatePath)
        let plain = session(.certificateAuthorities([authority]))
        #expect(try await !resumed(plain, nginx))
        #expect(try await resumed(plain, nginx), "the control: a plain CA policy resumes its session")
        await plain.shutdown()

        let chainLengths = Recorder<Int>()
        for policy in [
            TrustPolicy.publicKeys([nginx.publicKeyPin]).validatingChain(against: [authority]),
            TrustPolicy.custom { trust in
                chainLengths.append(trust.certificates.count)
                return .trust
            }.validatingChain(against: [authority]),
        ] {
            let checked = session(policy)
            for _ in 0..<3 {
                #expect(try await !resumed(checked, nginx), "\(policy)")
            }
            await checked.shutdown()
        }
        // Leaf and CA, on every connection: never a resumed session's leaf alone.
        #expect(chainLengths.all == [2, 2, 2], "\(chainLengths.all)")
    }

    /// Within one session, each host has its policy, and libcurl keys a TLS session by the
    /// host name, port and TLS settings: a session made for one host under its policy is never
    /// resumed for another host — here the same server by another name, under another policy.
    @Test func aTLSSessionMadeForOneHostIsNeverResumedForAnother() async throws {
        let nginx = try NginxSuiteScope.server()
        let authority = TrustPolicy.certificateAuthorities([.file(nginx.caCertificatePath)])
        var configuration = SessionConfiguration()
        configuration.trust = TrustConfiguration(default: authority, hosts: [.exact("127.0.0.1"): authority.minimumTLSVersion(.v1_3)])
        configuration.httpVersion = .http1_1
        let session = Session(configuration: configuration)
        #expect(try await !resumed(session, nginx))
        #expect(try await resumed(session, nginx), "the control: localhost resumes its own")
        #expect(try await !resumed(session, nginx, host: "127.0.0.1"))
        #expect(try await resumed(session, nginx, host: "127.0.0.1"), "127.0.0.1 resumes its own")
        await session.shutdown()
    }

    /// Each Curlew session has its own cache: a server that serves many users with one
    /// session per user never resumes one user's TLS session for another.
    @Test func sessionsNeverShareTLSSessions() async throws {
        let nginx = try NginxSuiteScope.server()
        let policy = TrustPolicy.certificateAuthorities([.file(nginx.caCertificatePath)])
        let first = session(policy)
        #expect(try await !resumed(first, nginx))
        #expect(try await resumed(first, nginx), "the control: the first session resumes its own")
        let second = session(policy)
        #expect(try await !resumed(second, nginx))
        await first.shutdown()
        await second.shutdown()
    }
}
