@testable import Curlew
import Foundation
import Testing
import TestServer

/// `TrustPolicy.checkingRevocation(againstFile:)` (`CURLOPT_CRLFILE`) against stunnel in front of
/// the test server, with revocation lists made by `openssl ca` for the test CA.
@Suite("Certificate revocation lists")
struct RevocationListTests {
    /// A TLS server, its CA, and two lists of that CA: one that revokes the server's
    /// certificate and one (made before) that revokes nothing.
    private struct Bed {
        let server: TestServer
        let front: TLSFront
        let certificates: TestCertificates
        let directory: URL
        var emptyList: String { directory.appendingPathComponent("empty.crl").path }
        var revokingList: String { directory.appendingPathComponent("revoked.crl").path }
        var url: URL { URL(string: "https://127.0.0.1:\(front.port)/get")! }

        static func start() async throws -> Bed {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-crl-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let certificates = try await TestCertificates.generate(in: directory)
            func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
            try Data().write(to: URL(fileURLWithPath: path("index.txt")))
            try Data("01\n".utf8).write(to: URL(fileURLWithPath: path("crlnumber")))
            let configuration = """
                [ca]
                default_ca = test
                [test]
                database = \(path("index.txt"))
                crlnumber = \(path("crlnumber"))
                default_md = sha256
                default_crl_days = 7

                """
            try Data(configuration.utf8).write(to: URL(fileURLWithPath: path("ca.cnf")))
            let ca = ["-config", path("ca.cnf"), "-keyfile", path("ca.key"), "-cert", certificates.caCertificatePath]
            for arguments in [
                ["ca"] + ca + ["-gencrl", "-out", path("empty.crl")],
                ["ca"] + ca + ["-revoke", certificates.certificatePath],
                ["ca"] + ca + ["-gencrl", "-out", path("revoked.crl")],
            ] {
                let result = try await ChildProcess.run(TestCertificates.opensslPath, arguments, in: directory)
                try #require(result.status == 0, "openssl \(arguments): \(result.errorText)")
            }
            let server = try await TestServer.start()
            let front = try await TLSFront.start(
                forwardingTo: server.port, certificate: certificates.certificateChainPath, key: certificates.privateKeyPath)
            return Bed(server: server, front: front, certificates: certificates, directory: directory)
        }

        func session(_ policy: TrustPolicy) -> Session {
            var configuration = SessionConfiguration()
            configuration.proxy = .direct
            configuration.trust = TrustConfiguration(default: policy)
            return Session(configuration: configuration)
        }

        var trustingTheCA: TrustPolicy { .certificateAuthorities([.file(certificates.caCertificatePath)]) }

        func stop() async {
            await front.stop()
            try? await server.shutdown()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test func aRevokedServerCertificateFailsTheHandshakeAndAListWithoutItPasses() async throws {
        let bed = try await Bed.start()
        defer { Task { await bed.stop() } }
        let passing = bed.session(bed.trustingTheCA.checkingRevocation(againstFile: bed.emptyList))
        _ = try await passing.request(bed.url).validate().data()
        #expect(bed.server.requestCount(path: "/get") == 1)
        await passing.shutdown()

        let revoking = bed.session(bed.trustingTheCA.checkingRevocation(againstFile: bed.revokingList))
        defer { Task { await revoking.shutdown() } }
        let request = revoking.request(bed.url)
        let error = await failure(request)
        #expect(error?.kind == .tlsFailure, "\(String(describing: error))")
        #expect(error?.message.contains("revoked") == true, "\(String(describing: error))")
        #expect(bed.server.requestCount(path: "/get") == 1)
        // The printed command refuses it too (curl's exit status 60: the peer certificate failed).
        let command = request.cURLDescription()
        #expect(command.contains("--crlfile '\(bed.revokingList)'"), "\(command)")
        let shell = try await ChildProcess.run("/bin/sh", ["-c", command + " --silent"])
        #expect(shell.status == 60, "\(shell.errorText) \(command)")
        #expect(bed.server.requestCount(path: "/get") == 1)
    }

    /// A pooled handle that had the list keeps none of it for a policy without one (and the
    /// other way round): per-host policies, one session.
    @Test func theListHoldsOnlyForThePoliciesThatNameIt() async throws {
        let bed = try await Bed.start()
        var configuration = SessionConfiguration()
        configuration.proxy = .direct
        configuration.trust = TrustConfiguration(
            default: bed.trustingTheCA,
            hosts: [.exact("localhost"): bed.trustingTheCA.checkingRevocation(againstFile: bed.revokingList)])
        let session = Session(configuration: configuration)
        defer { Task { await session.shutdown(); await bed.stop() } }
        for round in 1...2 {
            _ = try await session.request(bed.url).validate().data()
            let error = await failure(session.request("https://localhost:\(bed.front.port)/get"))
            #expect(error?.kind == .tlsFailure, "round \(round): \(String(describing: error))")
        }
        #expect(bed.server.requestCount(path: "/get") == 2)
    }

    @Test func aMissingOrUnusableListIsRefusedBeforeAnyConnection() async throws {
        let bed = try await Bed.start()
        defer { Task { await bed.stop() } }
        let missing = bed.directory.appendingPathComponent("missing.crl").path
        let bad: [(String, TrustPolicy)] = [
            ("missing", bed.trustingTheCA.checkingRevocation(againstFile: missing)),
            ("a directory", bed.trustingTheCA.checkingRevocation(againstFile: bed.directory.path)),
            ("not a list", bed.trustingTheCA.checkingRevocation(againstFile: bed.certificates.caCertificatePath)),
            ("no chain check", TrustPolicy.insecureNoEvaluation(reason: "test").checkingRevocation(againstFile: bed.emptyList)),
        ]
        for (name, policy) in bad {
            let session = bed.session(policy)
            let error = await failure(session.request(bed.url))
            #expect(error?.kind == .invalidRequest, "\(name): \(String(describing: error))")
            #expect(error?.message.contains("revocation list") == true, "\(name): \(String(describing: error))")
            await session.shutdown()
        }
        #expect(bed.server.connectionCount == 0)
        #expect(bed.front.handshakes() == (0, 0))
    }
}
