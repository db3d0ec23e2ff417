import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

/// Requests over Unix-domain sockets, against a test server listening on a socket in a
/// temporary directory that each test removes.
@Suite("Unix-domain sockets")
struct UnixSocketTests {
    private func options(socket path: String, proxy: ProxyConfiguration? = nil) -> RequestOptions {
        var options = RequestOptions()
        options.unixSocketPath = path
        options.proxy = proxy
        return options
    }

    /// A proxy that accepts no connections: a request that went through it would fail.
    private let deadProxy = ProxyConfiguration.explicit(.http, host: "127.0.0.1", port: 9)

    @Test func httpUnixURLReachesTheSocket() async throws {
        try await withUnixSocketServer { server, path in
            let url = server.url("/get?q=curl")
            #expect(url.absoluteString.hasPrefix("http+unix://%2F"))
            let response = try await Fixtures.session.request(url).validate().response
            let echo = try Fixtures.echo(response.value)
            #expect(echo.path == "/get")
            #expect(echo.args["q"] == .one("curl"))
            #expect(echo.headers["host"] == "localhost")
            #expect(response.url == url)
            #expect(server.requestCount(path: "/get") == 1)
        }
    }

    @Test func aURLBuiltForTheSocketReachesIt() async throws {
        try await withUnixSocketServer { server, path in
            let url = try URL.unixSocket(path, path: "/get", query: "q=a b")
            #expect(url.absoluteString.hasPrefix("http+unix://%2F"))
            #expect(!url.absoluteString.dropFirst("http+unix://".count).prefix(while: { $0 != "/" }).contains("/"))
            let echo = try Fixtures.echo(try await Fixtures.session.request(url).validate().data())
            #expect(echo.path == "/get")
            #expect(echo.args["q"] == .one("a b"))
            #expect(server.requestCount(path: "/get") == 1)
        }
    }

    @Test(arguments: [("relative.sock", "/"), ("/tmp/a\0b", "/"), ("/" + String(repeating: "s", count: 200), "/"), ("/tmp/s", "get")])
    func aSocketURLThatCannotWorkIsAClearError(socket: String, path: String) {
        do {
            let url = try URL.unixSocket(socket, path: path)
            Issue.record("accepted: \(url)")
        } catch {
            #expect(error.kind == .invalidURL)
        }
    }

    @Test func optionSendsAnHTTPURLToTheSocketWithItsHost() async throws {
        try await withUnixSocketServer { server, path in
            // A host no resolver knows and a dead proxy: only the socket can answer.
            let data = try await Fixtures.session.request(
                "http://docker.invalid/get", options: options(socket: path, proxy: deadProxy)
            ).validate().data()
            let echo = try Fixtures.echo(data)
            #expect(echo.headers["host"] == "docker.invalid")
            #expect(server.requestCount(path: "/get") == 1)
        }
    }

    @Test func proxiesDoNotApplyToSocketURLs() async throws {
        try await withUnixSocketServer { server, _ in
            var configuration = SessionConfiguration()
            configuration.proxy = deadProxy
            try await withSession(configuration: configuration) { session in
                let data = try await session.request(server.url("/anything/proxied")).validate().data()
                #expect(try Fixtures.echo(data).path == "/anything/proxied")
            }
        }
    }

    @Test func pooledHandleForgetsTheSocket() async throws {
        let tcp = try await Fixtures.server()
        try await withUnixSocketServer { server, path in
            try await withSession { session in
                let id = UUID().uuidString
                // Sequential requests: the second takes the handle the first gave back.
                _ = try await session.request(server.url("/anything/\(id)")).validate().data()
                _ = try await session.request(
                    "http://localhost/anything/\(id)-option", options: options(socket: path)
                ).validate().data()
                _ = try await session.request(tcp.url("/anything/\(id)-tcp")).validate().data()
                #expect(tcp.requestCount(path: "/anything/\(id)-tcp") == 1)
                #expect(server.requestCount(path: "/anything/\(id)-tcp") == 0)
                #expect(server.requestCount(path: "/anything/\(id)") == 1)
                #expect(server.requestCount(path: "/anything/\(id)-option") == 1)
            }
        }
    }

    @Test func streamedResponseOverTheSocket() async throws {
        try await withUnixSocketServer { server, _ in
            var received: [UInt8] = []
            for try await chunk in Fixtures.session.request(server.url("/stream-bytes/300000?chunk=7000&seed=3")).bytes {
                received.append(contentsOf: chunk)
            }
            #expect(received == TestServer.expectedBytes(count: 300_000, seed: 3))
        }
    }

    @Test func postBodyOverTheSocket() async throws {
        try await withUnixSocketServer { server, _ in
            let payload = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            let data = try await Fixtures.session.upload(.data(payload), to: server.url("/upload")).validate().data()
            let report = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            #expect(report?["method"] as? String == "POST")
            #expect(report?["bytes"] as? Int == payload.count)
            #expect((report?["crc32"] as? Int).map(UInt32.init) == TestServer.crc32(of: payload))
        }
    }

    // MARK: Redirects

    @Test func relativeRedirectStaysOnTheSocket() async throws {
        try await withUnixSocketServer { server, path in
            let response = try await Fixtures.session.request(server.url("/relative-redirect/2")).validate().response
            #expect(response.url == server.url("/get"))
            #expect(response.redirects.count == 2)
            #expect(server.requestCount(path: "/get") == 1)

            let viaOption = try await Fixtures.session.request(
                "http://localhost/relative-redirect/1", options: options(socket: path, proxy: deadProxy)
            ).validate().response
            #expect(viaOption.url.absoluteString == "http://localhost/get")
            #expect(server.requestCount(path: "/get") == 2)
        }
    }

    @Test func redirectToAnotherOriginLeavesTheSocket() async throws {
        let tcp = try await Fixtures.server()
        try await withUnixSocketServer { server, path in
            let id = UUID().uuidString
            let target = tcp.url("/anything/\(id)").absoluteString
            let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target
            let response = try await Fixtures.session.request(server.url("/redirect-to?url=\(encoded)")).validate().response
            #expect(response.url.absoluteString == target)
            #expect(tcp.requestCount(path: "/anything/\(id)") == 1)

            // With the option, the socket belongs to the URL's origin (localhost:80) only.
            let viaOption = try await Fixtures.session.request(
                "http://localhost/redirect-to?url=\(encoded)", options: options(socket: path)
            ).validate().response
            #expect(viaOption.url.absoluteString == target)
            #expect(tcp.requestCount(path: "/anything/\(id)") == 2)
            #expect(server.requestCount(path: "/anything/\(id)") == 0)
        }
    }

    @Test func redirectIntoASocketIsRefused() async throws {
        let tcp = try await Fixtures.server()
        try await withUnixSocketServer { server, _ in
            let target = server.url("/anything/entered").absoluteString
            let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target
            let error = await failure(Fixtures.session.request(tcp.url("/redirect-to?url=\(encoded)")))
            #expect(error?.kind == .unsupportedScheme, "\(String(describing: error))")
            #expect(error?.message.contains("Unix socket") == true, "\(String(describing: error))")
            #expect(server.requestCount(path: "/anything/entered") == 0)
        }
    }

    // MARK: Bad input

    @Test func emptyOrOverlongPathsAreRefused() async throws {
        let empty = await failure(Fixtures.session.request("http://localhost/x", options: options(socket: "")))
        #expect(empty?.kind == .invalidRequest)
        #expect(empty?.message.contains("empty Unix socket path") == true, "\(String(describing: empty))")

        let longest = "/tmp/" + String(repeating: "s", count: 102)  // 107 bytes: fits
        let tooLong = longest + "s"
        #expect(longest.utf8.count == 107)
        let overlong = await failure(Fixtures.session.request("http://localhost/x", options: options(socket: tooLong)))
        #expect(overlong?.kind == .invalidRequest)
        #expect(overlong?.message.contains("108 bytes") == true, "\(String(describing: overlong))")
        // At the limit, the path is taken and the socket is looked for.
        let missing = await failure(Fixtures.session.request("http://localhost/x", options: options(socket: longest)))
        #expect(missing?.kind == .connectionRefused, "\(String(describing: missing))")

        let inURL = await failure(Fixtures.session.request("http+unix://%2Ftmp%2F\(String(repeating: "u", count: 110))/x"))
        #expect(inURL?.kind == .invalidURL, "\(String(describing: inURL))")
        let withPort = await failure(Fixtures.session.request("http+unix://%2Ftmp%2Fa.sock:8080/x"))
        #expect(withPort?.kind == .invalidURL, "\(String(describing: withPort))")
        let withNUL = await failure(Fixtures.session.request("http+unix://%2Ftmp%2Fa%00b.sock/x"))
        #expect(withNUL?.kind == .invalidURL, "\(String(describing: withNUL))")
    }

    @Test func missingSocketNamesThePath() async throws {
        let directory = try SocketDirectory()
        defer { directory.remove() }
        let path = directory.path("absent.sock")
        let encoded = path.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? path
        for request in [
            Fixtures.session.request("http+unix://\(encoded)/v1.43/info"),
            Fixtures.session.request("http://localhost/v1.43/info", options: options(socket: path)),
        ] {
            let error = await failure(request)
            #expect(error?.kind == .connectionRefused, "\(String(describing: error))")
            #expect(error?.message == "the Unix socket \(path) does not exist", "\(String(describing: error))")
            #expect(error?.description.contains("resolve") == false)
        }
    }

    @Test func socketWithoutListenerIsRefused() async throws {
        let directory = try SocketDirectory()
        defer { directory.remove() }
        let path = directory.path("idle.sock")
        let descriptor = try bindWithoutListening(path)
        defer { _ = close(descriptor) }
        let error = await failure(Fixtures.session.request("http://localhost/x", options: options(socket: path)))
        #expect(error?.kind == .connectionRefused, "\(String(describing: error))")
        #expect(error?.message.contains("nothing accepts connections on the Unix socket \(path)") == true, "\(String(describing: error))")
    }

    @Test func conflictingSocketsAreRefused() async throws {
        let error = await failure(
            Fixtures.session.request("http+unix://%2Ftmp%2Fa.sock/x", options: options(socket: "/tmp/b.sock")))
        #expect(error?.kind == .invalidRequest, "\(String(describing: error))")
    }

    @Test func curlDescriptionShowsTheSocket() async throws {
        let described = Fixtures.session.request("http+unix://%2Fvar%2Frun%2Fdocker.sock/v1.43/containers/json?all=1")
            .cURLDescription()
        #expect(described.contains("--unix-socket '/var/run/docker.sock'"), "\(described)")
        #expect(described.hasSuffix("'http://localhost/v1.43/containers/json?all=1'"), "\(described)")
        #expect(!described.contains("--noproxy") && !described.contains(" -x "), "\(described)")

        let viaOption = Fixtures.session.request("http://localhost/_ping", options: options(socket: "/run/podman.sock"))
            .cURLDescription()
        #expect(viaOption.contains("--unix-socket '/run/podman.sock'"), "\(viaOption)")
        #expect(viaOption.hasSuffix("'http://localhost/_ping'"), "\(viaOption)")
    }
}
