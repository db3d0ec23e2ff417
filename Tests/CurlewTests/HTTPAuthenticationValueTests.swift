import Foundation
import HTTPTypes
import Logging
import Testing
import TestServer

@testable import Curlew

/// Credentials as values: input checks, the capability check, the origin keys of the store,
/// and the password never shown by descriptions, `cURLDescription()`, the logging monitor or
/// errors. Also the test server's own hashes, against published vectors.
@Suite("HTTP authentication: input, capabilities, redaction")
struct HTTPAuthenticationValueTests {
    private static let password = "visible-pa55word"

    // MARK: Bad input

    /// Each bad credential fails when the request is consumed, with invalidRequest, before
    /// anything is sent, and without the password in the error.
    @Test(arguments: [
        ("", "pw", HTTPAuthenticationMethod.digest, "user name is empty"),
        ("ann\r\nX-Injected: 1", "pw", .digest, "user name contains CR, LF or NUL"),
        ("ann\0", "pw", .digest, "user name contains CR, LF or NUL"),
        ("ann", "\(password)\nX: 1", .digest, "password contains CR, LF or NUL"),
        ("ann", "\(password)\0", .basic, "password contains CR, LF or NUL"),
        ("ann:admin", password, .basic, "contains ':'"),
        ("ann:admin", password, .any, "contains ':'"),
    ])
    func badCredentialsAreRefusedBeforeAnythingIsSent(
        username: String, password: String, method: HTTPAuthenticationMethod, expected: String
    ) async throws {
        let server = try await Fixtures.server()
        let path = "/anything/bad-credential-\(UInt32.random(in: 0...UInt32.max))"
        let error = try #require(
            await failure(Fixtures.session.request(server.url(path)).authenticate(username: username, password: password, method: method)))
        #expect(error.kind == .invalidRequest)
        #expect(error.message.contains(expected), "\(error)")
        #expect(!"\(error)".contains(Self.password), "\(error)")
        #expect(server.requestCount(path: path) == 0)
    }

    @Test func aColonIsFineInADigestUserName() async throws {
        let server = try await Fixtures.server()
        let user = "ann:\(UInt32.random(in: 0...UInt32.max))"
        let encoded = try #require(user.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let response = try await Fixtures.session.request(server.url("/digest-auth/auth/\(encoded)/pw"))
            .authenticate(username: user, password: "pw", method: .digest).response
        #expect(response.head.status.code == 200)
    }

    // MARK: Capabilities

    /// The capability check agrees with what the curl tool (built on the same libcurl) reports.
    @Test func supportedMethodsFollowLibcurlsFeatures() async throws {
        let result = try await CurlCLI.run(["--version"])
        let features = result.text.split(separator: "\n").first { $0.hasPrefix("Features:") }.map { $0.split(separator: " ").map(String.init) } ?? []
        #expect(!features.isEmpty, "\(result.text)")
        #expect(HTTPAuthenticationMethod.ntlm.isSupported == features.contains("NTLM"))
        #expect(HTTPAuthenticationMethod.negotiate.isSupported == features.contains("SPNEGO"))
        for method in [HTTPAuthenticationMethod.basic, .digest, .any, .anySafe] {
            #expect(method.isSupported && HTTPAuthenticationMethod.supported.contains(method))
        }
        #expect(HTTPAuthenticationMethod.supported.count == 4 + (features.contains("NTLM") ? 1 : 0) + (features.contains("SPNEGO") ? 1 : 0))
    }

    // MARK: The store's keys

    @Test func theStoreKeysByNormalisedOrigin() throws {
        var store = HTTPCredentialStore()
        let credential = HTTPCredential(username: "ann", password: Self.password)
        try store.set(credential, for: try #require(URL(string: "https://API.example.com/v1?x=1")))
        #expect(store.credential(for: try #require(URL(string: "https://api.example.com:443/other"))) == credential)
        #expect(store.credential(for: try #require(URL(string: "https://api.example.com./"))) == credential)
        #expect(store.credential(for: try #require(URL(string: "http://api.example.com/"))) == nil, "another scheme")
        #expect(store.credential(for: try #require(URL(string: "https://api.example.com:8443/"))) == nil, "another port")
        #expect(store.credential(for: try #require(URL(string: "https://www.example.com/"))) == nil, "another host")
        #expect(store.credential(for: try #require(URL(string: "https://example.com/"))) == nil, "the parent domain")
        try store.set(nil, for: try #require(URL(string: "https://api.example.com")))
        #expect(store.isEmpty)
        #expect(throws: CurlewError.self) { try store.set(credential, for: try #require(URL(string: "ftp://example.com/"))) }
        #expect(throws: CurlewError.self) { try store.set(credential, for: try #require(URL(string: "file:///tmp/x"))) }
    }

    // MARK: Redaction

    @Test func descriptionsNeverShowThePassword() {
        let credential = HTTPCredential(username: "ann", password: Self.password, method: .digest)
        var dumped = ""
        dump(credential, to: &dumped)
        var options = RequestOptions()
        options.httpCredential = credential
        for text in [credential.description, credential.debugDescription, "\(credential)", String(reflecting: credential), dumped, "\(options)"] {
            #expect(!text.contains(Self.password), "\(text)")
        }
        #expect(credential.description.contains("ann") && credential.description.contains("***"))
    }

    @Test(arguments: [
        (HTTPAuthenticationMethod.basic, "--basic"), (.digest, "--digest"), (.any, "--anyauth"), (.anySafe, "--anyauth"),
        (.ntlm, "--ntlm"), (.negotiate, "--negotiate"),
    ])
    func cURLDescriptionShowsTheUserAndMethodButNotThePassword(method: HTTPAuthenticationMethod, flag: String) async throws {
        let server = try await Fixtures.server()
        let request = Fixtures.session.request(server.url("/get")).authenticate(username: "ann", password: Self.password, method: method)
        let text = request.cURLDescription()
        #expect(text.contains("-u 'ann:***' \(flag)"), "\(text)")
        #expect(!text.contains(Self.password))
        let download = Fixtures.session.download(server.url("/get"), to: .directory(FileManager.default.temporaryDirectory))
            .authenticate(username: "ann", password: Self.password, method: method)
        #expect(download.cURLDescription().contains("-u 'ann:***' \(flag)"))
    }

    @Test func cURLDescriptionShowsTheStoresCredentialForItsOriginOnly() async throws {
        let server = try await Fixtures.server()
        var configuration = SessionConfiguration()
        try configuration.httpCredentials.set(HTTPCredential(username: "bob", password: Self.password, method: .digest), for: server.baseURL)
        let session = Session(configuration: configuration)
        defer { Task { await session.shutdown() } }
        let here = session.request(server.url("/get")).cURLDescription()
        #expect(here.contains("-u 'bob:***' --digest") && !here.contains(Self.password), "\(here)")
        let elsewhere = session.request(server.localhostURL("/get")).cURLDescription()
        #expect(!elsewhere.contains("-u "), "\(elsewhere)")
    }

    @Test func theLoggingMonitorShowsTheUserButNeverThePassword() async throws {
        let server = try await Fixtures.server()
        let messages = Recorder<(Logger.Level, String)>()
        let logger = Logger(label: "test") { _ in CapturingLogHandler(messages: messages) }
        var configuration = SessionConfiguration()
        configuration.eventMonitors = [LoggingEventMonitor(logger: logger, detail: .everything)]
        let session = Session(configuration: configuration)
        defer { Task { await session.shutdown() } }
        let user = "logged\(UInt32.random(in: 0...UInt32.max))"
        _ = try await session.request(server.url("/digest-auth/auth/\(user)/\(Self.password)"))
            .authenticate(username: user, password: Self.password, method: .digest).validate().data()
        // A wrong password, reported as a failure.
        _ = try? await session.request(server.url("/digest-auth/auth/\(user)/other"))
            .authenticate(username: user, password: Self.password, method: .digest).validate().data()
        let logged = messages.all.map(\.1)
        #expect(logged.count >= 4, "\(logged)")
        // The route's path holds the password; everything but the URLs must not.
        let withoutURLs = logged.map { $0.replacingOccurrences(of: "/\(Self.password)", with: "/<path>") }
        #expect(withoutURLs.allSatisfy { !$0.contains(Self.password) }, "\(withoutURLs)")
        #expect(logged.contains { $0.contains("authentication: Digest as \"\(user)\", password <redacted>") }, "\(logged)")
    }

    // MARK: The test server's hashes

    @Test func theTestServersHashesMatchPublishedVectors() {
        #expect(DigestHash.md5.hex("") == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(DigestHash.md5.hex("abc") == "900150983cd24fb0d6963f7d28e17f72")
        #expect(DigestHash.md5.hex("The quick brown fox jumps over the lazy dog") == "9e107d9d372bb6826bd81d3542a419d6")
        #expect(DigestHash.md5.hex(String(repeating: "1234567890", count: 8)) == "57edf4a22be3c955ac49da2e2107b67a")
        #expect(DigestHash.sha256.hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(DigestHash.sha256.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            DigestHash.sha256.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        // RFC 7616 §3.9.1's examples, with the server's formula.
        for (hash, expected) in [
            (DigestHash.md5, "8ca523f5e9506fed4657c9700eebdbec"),
            (.sha256, "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"),
        ] {
            let ha1 = hash.hex("Mufasa:http-auth@example.org:Circle of Life")
            let ha2 = hash.hex("GET:/dir/index.html")
            let response = hash.hex(
                "\(ha1):7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v:00000001:f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ:auth:\(ha2)")
            #expect(response == expected, "\(hash)")
        }
    }
}
