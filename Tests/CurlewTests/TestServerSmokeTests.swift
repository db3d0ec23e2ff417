import Foundation
import Testing
import TestServer

/// Checks the test fixtures (``TestServer``, ``NginxServer``, the unaccepting listener) with the
/// `curl` command-line tool, independently of Curlew itself.
@Suite("Test server smoke tests")
struct TestServerSmokeTests {
    // MARK: TestServer routes

    @Test func echoReportsMethodArgumentsAndHeaders() async throws {
        try await withServer { server in
            let result = try await CurlCLI.run([
                "-s", "-H", "X-Probe: one", "-H", "X-Probe: two", server.url("/anything/deep?a=1&a=2&b=x+y").absoluteString,
            ])
            #expect(result.exitCode == 0)
            let echo = try result.jsonObject()
            #expect(echo["method"] as? String == "GET")
            #expect(echo["path"] as? String == "/anything/deep")
            let args = try #require(echo["args"] as? [String: Any])
            #expect(args["a"] as? [String] == ["1", "2"])
            #expect(args["b"] as? String == "x y")
            let headers = try #require(echo["headers"] as? [String: String])
            #expect(headers["x-probe"] == "one, two")
            #expect(server.requestCount(path: "/anything/deep") == 1)
        }
    }

    @Test func postEchoesJSONBody() async throws {
        try await withServer { server in
            let result = try await CurlCLI.run([
                "-s", "-X", "POST", "-H", "Content-Type: application/json", "--data-binary", #"{"n":[1,2,3]}"#,
                server.url("/post").absoluteString,
            ])
            let echo = try result.jsonObject()
            #expect(echo["body"] as? String == #"{"n":[1,2,3]}"#)
            #expect(echo["bodyLength"] as? Int == 13)
            let json = try #require(echo["json"] as? [String: Any])
            #expect(json["n"] as? [Int] == [1, 2, 3])
            let wrongMethod = try await CurlCLI.run(["-s", "-o", "/dev/null", "-w", "%{http_code}", server.url("/post").absoluteString])
            #expect(wrongMethod.text == "405")
        }
    }

    @Test func bytesAndStreamBytesFollowThePattern() async throws {
        try await withServer { server in
            let expected = Data(TestServer.expectedBytes(count: 100_000, seed: 3))
            let fixed = try await CurlCLI.run(["-s", server.url("/bytes/100000?seed=3").absoluteString])
            #expect(fixed.output.count == 100_000)
            #expect(fixed.output == expected)
            let chunked = try await CurlCLI.run([
                "-s", "-D", "-", server.url("/stream-bytes/100000?seed=3&chunk=777").absoluteString,
            ])
            let text = String(decoding: chunked.output.prefix(200), as: UTF8.self).lowercased()
            #expect(text.contains("transfer-encoding: chunked"))
            #expect(chunked.output.suffix(100_000) == expected)
        }
    }

    @Test(arguments: ["gzip", "deflate", "brotli"])
    func compressedEchoDecodes(encoding: String) async throws {
        try await withServer { server in
            let raw = try await CurlCLI.run(["-s", "-D", "-", "-o", "/dev/null", server.url("/\(encoding)").absoluteString])
            let wireName = encoding == "brotli" ? "br" : encoding
            #expect(raw.text.lowercased().contains("content-encoding: \(wireName)"))
            let decoded = try await CurlCLI.run(["-s", "--compressed", server.url("/\(encoding)").absoluteString])
            let echo = try decoded.jsonObject()
            #expect(echo["path"] as? String == "/\(encoding)")
        }
    }

    @Test func keepAliveReusesOneConnection() async throws {
        try await withServer { server in
            let url = server.url("/get").absoluteString
            let result = try await CurlCLI.run([
                "-s", "-o", "/dev/null", "-o", "/dev/null", "-o", "/dev/null", url, url,
                server.url("/bytes/70000").absoluteString,
            ])
            #expect(result.exitCode == 0)
            #expect(server.requestCount(path: "/get") == 2)
            #expect(server.requestCount(path: "/bytes/70000") == 1)
            #expect(server.connectionCount == 1)
        }
    }

    @Test func uploadStreamsChunkedBodyAndReportsCRC() async throws {
        try await withServer { server in
            let payload = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("upload-\(UUID().uuidString)")
            try payload.write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let result = try await CurlCLI.run([
                "-s", "-v", "-X", "PUT", "-H", "Transfer-Encoding: chunked", "-H", "Expect: 100-continue",
                "--data-binary", "@\(file.path)", server.url("/upload").absoluteString,
            ])
            let report = try result.jsonObject()
            #expect(report["bytes"] as? Int == payload.count)
            #expect((report["crc32"] as? Int).map(UInt32.init) == TestServer.crc32(of: payload))
            #expect(report["chunked"] as? Bool == true)
            #expect(result.errorText.contains("HTTP/1.1 100 Continue"))
        }
    }

    @Test func redirectsChainAndCrossHosts() async throws {
        try await withServer { server in
            let chain = try await CurlCLI.run([
                "-s", "-L", "-o", "/dev/null", "-w", "%{num_redirects} %{url_effective}",
                server.url("/redirect/3").absoluteString,
            ])
            #expect(chain.text == "3 \(server.url("/get").absoluteString)")
            let target = server.localhostURL("/anything").absoluteString
            let cross = try await CurlCLI.run([
                "-s", "-L", "-o", "/dev/null", "-w", "%{num_redirects} %{url_effective}",
                server.url("/redirect-to?url=\(target)").absoluteString,
            ])
            #expect(cross.text == "1 \(target)")
        }
    }

    @Test func headerDrivenStatusDelayAndHeaders() async throws {
        try await withServer { server in
            let start = ContinuousClock.now
            let result = try await CurlCLI.run([
                "-s", "-D", "-", "-o", "/dev/null", "-H", "X-Test-Status: 418", "-H", "X-Test-Delay-Ms: 300",
                "-H", "X-Test-Response-Header: X-Extra: yes", server.url("/get").absoluteString,
            ])
            #expect(ContinuousClock.now - start >= .milliseconds(300))
            #expect(result.text.hasPrefix("HTTP/1.1 418"))
            #expect(result.text.contains("X-Extra: yes"))
        }
    }

    @Test func basicAuthAcceptsOnlyTheRightPassword() async throws {
        try await withServer { server in
            let url = server.url("/basic-auth/ann/s3cret").absoluteString
            let good = try await CurlCLI.run(["-s", "-u", "ann:s3cret", url])
            #expect(try good.jsonObject()["authenticated"] as? Bool == true)
            let bad = try await CurlCLI.run(["-s", "-o", "/dev/null", "-w", "%{http_code}", "-u", "ann:nope", url])
            #expect(bad.text == "401")
        }
    }

    @Test func flakyFailsThenSucceeds() async throws {
        try await withServer { server in
            let flaky = server.url("/flaky/smoke?failures=2&status=500&retry_after=1").absoluteString
            var codes: [String] = []
            for _ in 0..<3 {
                codes.append(try await CurlCLI.run(["-s", "-o", "/dev/null", "-w", "%{http_code}", flaky]).text)
            }
            #expect(codes == ["500", "500", "200"])
            let fourth = try await CurlCLI.run(["-s", flaky])
            #expect(try fourth.jsonObject()["attempt"] as? Int == 4)
        }
    }

    @Test func http10ClientGetsCloseDelimitedStream() async throws {
        try await withServer { server in
            let result = try await CurlCLI.run([
                "-s", "--http1.0", "-D", "-", server.url("/stream-bytes/5000?chunk=100").absoluteString,
            ])
            #expect(result.exitCode == 0)
            #expect(!result.text.lowercased().contains("transfer-encoding"))
            #expect(result.output.suffix(5000) == Data(TestServer.expectedBytes(count: 5000)))
        }
    }

    // MARK: Faults

    @Test func closeMidBodyTruncatesTheTransfer() async throws {
        try await withServer { server in
            let result = try await CurlCLI.run([
                "-s", "-o", "/dev/null", "-w", "%{size_download}",
                server.url("/fault/close-mid-body?length=10000&send=4000").absoluteString,
            ])
            #expect(result.exitCode == 18)  // CURLE_PARTIAL_FILE
            #expect(result.text == "4000")
        }
    }

    @Test func neverAnswerTimesOutAndMalformedHeadFails() async throws {
        try await withServer { server in
            let silent = try await CurlCLI.run(["-s", "-m", "1", server.url("/fault/never-answer").absoluteString])
            #expect(silent.exitCode == 28)  // CURLE_OPERATION_TIMEDOUT
            let garbage = try await CurlCLI.run(["-s", server.url("/fault/malformed-head").absoluteString])
            #expect(garbage.exitCode != 0)
            let badLength = try await CurlCLI.run(["-s", server.url("/fault/bad-content-length").absoluteString])
            #expect(badLength.exitCode != 0)
            let badGzip = try await CurlCLI.run(["-s", "--compressed", server.url("/fault/bad-gzip").absoluteString])
            #expect(badGzip.exitCode == 61)  // CURLE_BAD_CONTENT_ENCODING
        }
    }

    @Test func shutdownClosesUnansweredConnectionsAndStopsListening() async throws {
        let server = try await TestServer.start()
        let url = server.url("/fault/never-answer").absoluteString
        async let waiting = CurlCLI.run(["-s", "-m", "20", url])
        try await waitUntil { server.requestCount(path: "/fault/never-answer") == 1 }
        #expect(server.requestCount(path: "/fault/never-answer") == 1, "curl's request arrived")
        #expect(server.openConnectionCount == 1)
        try await server.shutdown()
        let result = try await waiting
        #expect(result.exitCode == 52)  // CURLE_GOT_NOTHING: closed without a response
        // Not curl's own 20 s limit (exit code 28): the shutdown ended the wait.
        let refused = try await CurlCLI.run(["-s", server.url("/get").absoluteString])
        #expect(refused.exitCode == 7)  // CURLE_COULDNT_CONNECT
    }

    @Test func gzipBombInflatesToTheRequestedSize() async throws {
        try await withServer { server in
            let url = server.url("/gzip-bomb?size=20000000").absoluteString
            let compressed = try await CurlCLI.run(["-s", "-o", "/dev/null", "-w", "%{size_download}", url])
            let inflated = try await CurlCLI.run(["-s", "--compressed", "-o", "/dev/null", "-w", "%{size_download}", url])
            let wireSize = try #require(Int(compressed.text))
            #expect(wireSize > 0 && wireSize < 1_000_000)
            #expect(inflated.exitCode == 0)
            // curl reports the bytes it received on the wire.
            #expect(Int(inflated.text) == wireSize)
            let body = try await CurlCLI.run(["-s", "--compressed", url])
            #expect(body.output.count == 20_000_000)
            #expect(body.output.allSatisfy { $0 == 0 })
        }
    }

    @Test func unacceptingListenerMakesConnectTimeOut() async throws {
        let listener = try TestServer.makeUnacceptingListener()
        defer { listener.close() }
        let start = ContinuousClock.now
        let result = try await CurlCLI.run(["-s", "--connect-timeout", "1", "http://127.0.0.1:\(listener.port)/"])
        #expect(result.exitCode == 28)  // CURLE_OPERATION_TIMEDOUT, not 7 (refused)
        #expect(ContinuousClock.now - start >= .milliseconds(900))
    }

    // MARK: nginx

    @Test func nginxServesHTTP2WithTheGeneratedCertificate() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("nginx-root-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try Data(repeating: 0x61, count: 2_000_000).write(to: root.appendingPathComponent("file.bin"))
        let nginx = try await NginxServer.start(documentRoot: root, plainHTTP: true, fixedResponses: ["/hi": "hi there"])
        do {
            let http2 = try await CurlCLI.run([
                "-s", "--http2", "--cacert", nginx.caCertificatePath, "-w", " %{http_version}",
                nginx.url("/small").absoluteString,
            ])
            #expect(http2.text == "hello from nginx\n 2")
            let pinned = try await CurlCLI.run([
                "-s", "--cacert", nginx.caCertificatePath, "--pinnedpubkey", nginx.publicKeyPin,
                nginx.ipBaseURL.appendingPathComponent("hi").absoluteString,
            ])
            #expect(pinned.text == "hi there")
            let wrongPin = try await CurlCLI.run([
                "-s", "--cacert", nginx.caCertificatePath, "--pinnedpubkey",
                "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", nginx.url("/small").absoluteString,
            ])
            #expect(wrongPin.exitCode == 90)  // CURLE_SSL_PINNEDPUBKEYNOTMATCH
            let untrusted = try await CurlCLI.run(["-s", nginx.url("/small").absoluteString])
            #expect(untrusted.exitCode == 60)  // CURLE_PEER_FAILED_VERIFICATION
            let plainBase = try #require(nginx.plainBaseURL)
            let plain = try await CurlCLI.run([
                "-s", "-o", "/dev/null", "-w", "%{size_download} %{http_version}",
                plainBase.appendingPathComponent("file.bin").absoluteString,
            ])
            #expect(plain.text == "2000000 1.1")
        } catch {
            await nginx.stop()
            throw error
        }
        await nginx.stop()
        #expect(!FileManager.default.fileExists(atPath: nginx.prefixDirectory.path))
    }

    // MARK: Helpers

    /// Runs `body` with a fresh server and shuts it down afterwards, even on failure.
    private func withServer(_ body: (TestServer) async throws -> Void) async throws {
        let server = try await TestServer.start()
        do {
            try await body(server)
        } catch {
            try await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }
}
