import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

/// What reaches the server of the `User-Agent` and `Accept-Language` Curlew sends by default,
/// read from the raw header lines the test server recorded. Each case is checked on both ways
/// headers are set: the session's shared list (a request without headers of its own) and the
/// merged list (a request with some).
@Suite("Default headers: User-Agent and Accept-Language on the wire")
struct DefaultHeadersTests {
    private static let own: HTTPFields = [HTTPField.Name("X-Own")!: "1"]

    /// The echoes of a request without headers of its own and of one with `extra` (plus X-Own).
    private func echoes(_ configuration: SessionConfiguration, extra: HTTPFields = [:]) async throws -> [Echo] {
        let server = try await Fixtures.server()
        var configuration = configuration
        configuration.maximumConnectionsPerHost = 1
        let session = Session(configuration: configuration)
        var fields = Self.own
        fields.append(contentsOf: extra)
        do {
            let plain = try Fixtures.echo(try await session.request(server.url("/anything")).data())
            let custom = try Fixtures.echo(try await session.request(server.url("/anything"), headers: RequestHeaders(fields)).data())
            await session.shutdown()
            return [plain, custom]
        } catch {
            await session.shutdown()
            throw error
        }
    }

    @Test func theDefaultsGoOutOnceEach() async throws {
        for echo in try await echoes(SessionConfiguration()) {
            #expect(echo.headerLines(named: "User-Agent") == [SessionConfiguration.defaultUserAgent])
            #expect(echo.headerLines(named: "User-Agent").first?.hasPrefix("Curlew/\(CurlewVersion.current) (Linux; ") == true)
            // The test process's own locale decides; nil (C or POSIX) means no line at all.
            #expect(echo.headerLines(named: "Accept-Language") == SessionConfiguration.defaultAcceptLanguage.map { [$0] } ?? [])
        }
    }

    @Test func bothAreReplaceable() async throws {
        var configuration = SessionConfiguration()
        configuration.userAgent = "MyService/3 (ops@example.com)"
        configuration.acceptLanguage = "fr-CH;q=1.0, fr;q=0.9"
        for echo in try await echoes(configuration) {
            #expect(echo.headerLines(named: "User-Agent") == ["MyService/3 (ops@example.com)"])
            #expect(echo.headerLines(named: "Accept-Language") == ["fr-CH;q=1.0, fr;q=0.9"])
        }
    }

    @Test func bothAreRemovable() async throws {
        var configuration = SessionConfiguration()
        configuration.userAgent = nil
        configuration.acceptLanguage = nil
        for echo in try await echoes(configuration) {
            #expect(echo.headerLines(named: "User-Agent") == [], "libcurl adds none of its own")
            #expect(echo.headerLines(named: "Accept-Language") == [])
            #expect(echo.headerLines(named: "Accept-Encoding") != [], "the other defaults stay")
        }
    }

    @Test func aRequestsOwnValuesWin() async throws {
        var configuration = SessionConfiguration()
        configuration.acceptLanguage = "fr"
        configuration.userAgent = "Shared/1"
        let echoes = try await echoes(configuration, extra: [.acceptLanguage: "it-IT", .userAgent: "Own/2"])
        #expect(echoes[0].headerLines(named: "Accept-Language") == ["fr"])
        #expect(echoes[1].headerLines(named: "Accept-Language") == ["it-IT"], "one line: the request's")
        #expect(echoes[1].headerLines(named: "User-Agent") == ["Own/2"])
        #expect(echoes[1].headerLines(named: "X-Own") == ["1"])
    }

    /// `Accept-Encoding` is Curlew's own listed field (not libcurl's option): once, with the
    /// codings Curlew decodes, before `User-Agent` as libcurl placed it; a request's own value
    /// replaces it; without automatic decompression there is none.
    @Test func acceptEncodingGoesOutOnceFirstAndGivesWay() async throws {
        for echo in try await echoes(SessionConfiguration()) {
            #expect(echo.headerLines(named: "Accept-Encoding") == ["deflate, gzip, br, zstd"])
            let names = echo.headerLines.compactMap { $0.first?.lowercased() }
            let encoding = try #require(names.firstIndex(of: "accept-encoding"))
            let agent = try #require(names.firstIndex(of: "user-agent"))
            #expect(encoding < agent, "\(names)")
        }
        let own = try await echoes(SessionConfiguration(), extra: [.acceptEncoding: "identity"])
        #expect(own[1].headerLines(named: "Accept-Encoding") == ["identity"], "one line: the request's")
        var plain = SessionConfiguration()
        plain.automaticDecompression = false
        for echo in try await echoes(plain) {
            #expect(echo.headerLines(named: "Accept-Encoding") == [])
        }
    }

    @Test func theSessionsDefaultHeadersWinOverTheSettings() async throws {
        var configuration = SessionConfiguration()
        configuration.acceptLanguage = "fr"
        configuration.userAgent = "Setting/1"
        configuration.defaultHeaders = [.acceptLanguage: "es", .userAgent: "Team/1"]
        for echo in try await echoes(configuration) {
            #expect(echo.headerLines(named: "Accept-Language") == ["es"])
            #expect(echo.headerLines(named: "User-Agent") == ["Team/1"])
        }
    }

    @Test func theCURLCommandShowsThem() async throws {
        let server = try await Fixtures.server()
        var configuration = SessionConfiguration()
        configuration.acceptLanguage = "de-DE;q=1.0, en;q=0.9"
        let session = Session(configuration: configuration)
        let command = session.request(server.url("/anything")).cURLDescription()
        await session.shutdown()
        #expect(command.contains("-H 'User-Agent: \(SessionConfiguration.defaultUserAgent)'"), "\(command)")
        #expect(command.contains("-H 'Accept-Language: de-DE;q=1.0, en;q=0.9'"), "\(command)")
        configuration.acceptLanguage = nil
        configuration.userAgent = nil
        let bare = Session(configuration: configuration)
        let without = bare.request(server.url("/anything")).cURLDescription()
        await bare.shutdown()
        #expect(!without.contains("User-Agent") && !without.contains("Accept-Language"), "\(without)")
    }
}
