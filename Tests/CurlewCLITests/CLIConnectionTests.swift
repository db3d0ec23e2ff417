import Foundation
import Testing
import TestServer

/// `--curl`, authentication, proxies, HTTP versions and trust options.
@Suite(.temporaryFolders) struct CLIConnectionTests {
    @Test func curlPrintsTheCommandWithoutSending() async throws {
        try await withServer { server in
            let run = try await CLI.run([
                "--curl", server.url("/post").absoluteString, "a=1", "--auth", "ann:pw",
            ])
            #expect(run.status == 0, "\(run.errorOutput)")
            #expect(run.output.hasPrefix("curl "))
            #expect(run.output.contains(server.url("/post").absoluteString))
            #expect(run.output.contains("ann:***"))
            #expect(!run.output.contains("ann:pw"))
            #expect(server.totalRequestCount == 0)
        }
    }

    @Test func basicAuthentication() async throws {
        try await withServer { server in
            let good = try await CLI.run(["--check-status", "-a", "ann:pw", server.url("/basic-auth/ann/pw").absoluteString])
            #expect(good.status == 0, "\(good.errorOutput)")
            let bad = try await CLI.run(["--check-status", "-a", "ann:nope", server.url("/basic-auth/ann/pw").absoluteString])
            #expect(bad.status == 4)
        }
    }

    @Test func digestAuthentication() async throws {
        try await withServer { server in
            let url = server.url("/digest-auth/auth/ann/pw/MD5").absoluteString
            let good = try await CLI.run(["--check-status", "--auth-type", "digest", "-a", "ann:pw", url])
            #expect(good.status == 0, "\(good.errorOutput)")
            #expect(try good.json()["authenticated"] as? Bool == true)
            let basicOnly = try await CLI.run(["--check-status", "-a", "ann:pw", url])
            #expect(basicOnly.status == 4)
        }
    }

    @Test func bearerToken() async throws {
        try await withServer { server in
            let run = try await CLI.run(["--check-status", "--bearer", "t0ken", server.url("/bearer").absoluteString])
            #expect(run.status == 0, "\(run.errorOutput)")
            let withoutToken = try await CLI.run(["--check-status", server.url("/bearer").absoluteString])
            #expect(withoutToken.status == 4)
            let viaAuthType = try await CLI.run(["--check-status", "-A", "bearer", "-a", "t0ken", server.url("/bearer").absoluteString])
            #expect(viaAuthType.status == 0)
        }
    }

    @Test func explicitProxyIsUsedAndItsPasswordNeverPrinted() async throws {
        try await withServer { server in
            let proxy = try await LocalProxy.start(.tinyproxy)
            do {
                let run = try await CLI.run(["--proxy", "http://127.0.0.1:\(proxy.port)", server.url("/get").absoluteString])
                #expect(run.status == 0, "\(run.errorOutput)")
                #expect((try run.json()["headers"] as? [String: String])?["via"]?.contains("tinyproxy") == true)
                let curl = try await CLI.run(["--curl", "--proxy", "http://u:pr0xy@127.0.0.1:\(proxy.port)", server.url("/get").absoluteString])
                #expect(curl.output.contains("-x"))
                #expect(!curl.output.contains("pr0xy"))
            } catch {
                await proxy.stop()
                throw error
            }
            await proxy.stop()
        }
    }

    @Test func deadProxyExitsSeven() async throws {
        try await withServer { server in
            let port = try RefusingPort.make()
            let run = try await CLI.run(["--proxy", "http://127.0.0.1:\(port)", server.url("/get").absoluteString])
            #expect(run.status == 7, "\(run.errorOutput)")
            #expect(run.errorLines.count == 1)
        }
    }

    /// Against nginx's TLS with a private CA: untrusted by default (8), trusted with --cacert,
    /// pinned with --pin (a wrong pin: 8), unchecked with --insecure (and a warning), HTTP/2
    /// and HTTP/1.1 on request.
    @Test func trustOptionsAgainstTLS() async throws {
        let nginx = try await NginxServer.start(fixedResponses: ["/hello": "hi"])
        do {
            let url = nginx.url("/hello").absoluteString
            let untrusted = try await CLI.run([url])
            #expect(untrusted.status == 8, "\(untrusted.errorOutput)")
            #expect(untrusted.errorLines.count == 1)

            let trusted = try await CLI.run(["--cacert", nginx.caCertificatePath, url])
            #expect(trusted.status == 0, "\(trusted.errorOutput)")
            #expect(trusted.output == "hi")

            let pinned = try await CLI.run(["--cacert", nginx.caCertificatePath, "--pin", nginx.publicKeyPin, url])
            #expect(pinned.status == 0, "\(pinned.errorOutput)")
            let wrongPin = "sha256//" + Data(repeating: 7, count: 32).base64EncodedString()
            let mispinned = try await CLI.run(["--cacert", nginx.caCertificatePath, "--pin", wrongPin, url])
            #expect(mispinned.status == 8, "\(mispinned.errorOutput)")
            #expect(mispinned.errorLines.count == 1)

            let insecure = try await CLI.run(["--insecure", url])
            #expect(insecure.status == 0, "\(insecure.errorOutput)")
            #expect(insecure.output == "hi")
            #expect(insecure.errorOutput.contains("WARNING: --insecure"))

            let http2 = try await CLI.run(["-v", "--http2", "--cacert", nginx.caCertificatePath, url])
            #expect(http2.output.contains("HTTP/2 200"), "\(http2.output)")
            let http1 = try await CLI.run(["-v", "--http1.1", "--cacert", nginx.caCertificatePath, url])
            #expect(http1.output.contains("HTTP/1.1 200"), "\(http1.output)")
            #expect(http1.errorOutput.contains("* TLS handshake"))
        } catch {
            await nginx.stop()
            throw error
        }
        await nginx.stop()
    }
}
