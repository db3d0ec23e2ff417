import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

/// One redaction wherever a request is printed: `cURLDescription()`, `debugPrint(request)`,
/// `print`/`debugPrint`/`dump` of an `OutgoingRequest`, and error messages. Secrets still go on
/// the wire, and `cURLDescription(revealingSecrets: true)` repeats them when asked.
@Suite("Printed requests never show secrets unless asked")
struct PrintedSecretsTests {
    static let secret = "s3cr3t-7c1e"

    private var jsonBody: String {
        #"{"user":"ann","password":"\#(Self.secret)","nested":{"access_token":"\#(Self.secret)","keep":1},"list":[{"client_secret":"\#(Self.secret)"}]}"#
    }

    private func expectNoSecret(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!text.contains(Self.secret), "\(text)", sourceLocation: sourceLocation)
    }

    @Test func secretFieldsOfJSONAndFormBodiesArePrintedAsStarsAndStillSent() async throws {
        let server = try await Fixtures.server()
        let session = Session()
        let json = session.request(
            server.url("/anything"), method: .post, headers: ["Content-Type": "application/json"], body: .string(jsonBody))
        let form = session.request(
            server.url("/anything"), method: .post, headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: .string("grant_type=password&username=ann&password=\(Self.secret)&refresh%5Ftoken=\(Self.secret)"))
        for request in [json, form] {
            expectNoSecret(request.cURLDescription())
            expectNoSecret(request.debugDescription)
            expectNoSecret("\(request)")
        }
        let command = json.cURLDescription()
        // Only the values change: the rest of the body keeps its bytes and its order.
        #expect(command.contains(#"{"user":"ann","password":"***","nested":{"access_token":"***","keep":1},"list":[{"client_secret":"***"}]}"#), "\(command)")
        #expect(form.cURLDescription().contains("grant_type=password&username=ann&password=***&refresh%5Ftoken=***"))

        // Redaction is for what is printed: the server gets the secrets, before and after a run.
        let sent = try Fixtures.echo(try await json.data())
        #expect(sent.body == jsonBody)
        expectNoSecret(json.cURLDescription())
        expectNoSecret(json.debugDescription)
        await session.shutdown()
    }

    @Test func aBodyCutShortOrMalformedIsStillRedacted() async throws {
        let session = Session()
        // The value never ends: everything after the name goes.
        let cut = session.request(
            "http://127.0.0.1:9/x", method: .post, headers: ["Content-Type": "application/json"],
            body: .string(#"{"a":1,"password":"\#(Self.secret)"#))
        expectNoSecret(cut.cURLDescription())
        #expect(cut.cURLDescription().contains(#"{"a":1,"password":"***""#))
        // An escaped name is the same name; a non-string value is replaced whole.
        let escaped = session.request(
            "http://127.0.0.1:9/x", method: .post, body: .string(#"[{"pass\u0077ord" : {"v":"\#(Self.secret)"}}, "password"]"#))
        expectNoSecret(escaped.cURLDescription())
        #expect(escaped.cURLDescription().contains(#""password"]"#), "a string value that is not a name stays")
        await session.shutdown()
    }

    @Test func aBodyWithoutSecretsIsPrintedExactlyAsSent() async throws {
        // The command must still repeat the request byte for byte when there is nothing to hide.
        let server = try await Fixtures.server()
        let session = Session()
        let body = #"{ "b" : [1, 2.50, "x\"y"],  "a":null }"#
        let request = session.request(
            server.url("/anything"), method: .post, headers: ["Content-Type": "application/json"], body: .string(body))
        let shell = try await ChildProcess.run("/bin/sh", ["-c", request.cURLDescription() + " --silent"])
        #expect(shell.status == 0, "\(shell.errorText)")
        #expect(try Fixtures.echo(shell.output).body == body)
        await session.shutdown()
    }

    @Test func revealingSecretsGivesACommandThatSendsWhatCurlewSends() async throws {
        let server = try await Fixtures.server()
        var configuration = SessionConfiguration()
        try configuration.httpCredentials.set(HTTPCredential(username: "ann", password: Self.secret, method: .basic), for: server.url("/"))
        let session = Session(configuration: configuration)
        let request = session.request(
            server.url("/anything?access_token=\(Self.secret)&page=2"), method: .post,
            headers: ["Content-Type": "application/json", "X-Api-Key": "plain", "Cookie": "sid=\(Self.secret)"],
            body: .string(jsonBody))
        let redacted = request.cURLDescription()
        expectNoSecret(redacted)
        #expect(redacted.contains("access_token=***&page=2"), "\(redacted)")
        #expect(redacted.contains("-u 'ann:***'"), "\(redacted)")

        let revealed = request.cURLDescription(revealingSecrets: true)
        #expect(revealed.contains(Self.secret))
        let curlew = try Fixtures.echo(try await request.data())
        let shell = try await ChildProcess.run("/bin/sh", ["-c", revealed + " --silent"])
        #expect(shell.status == 0, "\(shell.errorText)")
        let curl = try Fixtures.echo(shell.output)
        #expect(curl.body == curlew.body)
        #expect(curl.rawTarget == curlew.rawTarget)
        for name in ["authorization", "cookie", "x-api-key", "content-type"] {
            #expect(curl.headerLines(named: name) == curlew.headerLines(named: name), "\(name)")
        }
        #expect(curlew.headerLines(named: "authorization").first?.hasPrefix("Basic ") == true)
        await session.shutdown()
    }

    @Test func anOutgoingRequestPrintsAndDumpsWithoutSecrets() throws {
        var options = RequestOptions()
        options.httpCredential = HTTPCredential(username: "ann", password: Self.secret)
        options.proxy = .explicit(.http, host: "127.0.0.1", port: 3128, username: "p", password: Self.secret)
        let request = OutgoingRequest(
            url: try #require(URL(string: "https://ann:\(Self.secret)@api.example.com/token?id_token=\(Self.secret)")),
            method: .post,
            headerFields: [.authorization: "Bearer \(Self.secret)", .proxyAuthorization: "Basic \(Self.secret)", .cookie: "a=\(Self.secret)"],
            body: .string("grant_type=refresh_token&refresh_token=\(Self.secret)"),
            options: options)
        var dumped = ""
        dump(request, to: &dumped)
        for text in [request.description, request.debugDescription, "\(request)", String(reflecting: request), dumped] {
            expectNoSecret(text)
        }
        #expect(request.description == "POST https://ann:***@api.example.com/token?id_token=***")
        #expect(request.debugDescription.contains("Authorization: Bearer ***"))
        #expect(dumped.contains("Authorization: Bearer ***"), "\(dumped)")
        // The request itself is untouched.
        #expect(request.headerFields[.authorization] == "Bearer \(Self.secret)")
    }

    @Test func anAdaptedRequestPrintsWithoutTheTokenTheAdapterAdded() async throws {
        let server = try await Fixtures.server()
        let seen = Recorder<String>()
        let adapter = Interceptor.adapter { request, _ in
            var adapted = request
            adapted.headerFields[.authorization] = "Bearer \(Self.secret)"
            seen.append("\(adapted)\n\(String(reflecting: adapted))")
            return adapted
        }
        let session = Session(interceptors: [adapter])
        let request = session.request(server.url("/anything"))
        let echo = try Fixtures.echo(try await request.data())
        #expect(echo.headers["authorization"] == "Bearer \(Self.secret)")
        #expect(seen.all.count == 1)
        seen.all.forEach { expectNoSecret($0) }
        // After the run the command shows the adapted request: the header, not its token.
        #expect(request.cURLDescription().contains("'Authorization: Bearer ***'"), "\(request.cURLDescription())")
        #expect(request.debugDescription == request.cURLDescription())
        await session.shutdown()
    }

    @Test func errorsRedactSecretQueryValuesButNotOtherValues() async throws {
        let port = try closedLoopbackPort()
        do {
            _ = try await Fixtures.session.request("http://127.0.0.1:\(port)/x?refresh_token=\(Self.secret)&q=open").data()
            Issue.record("expected a refused connection")
        } catch {
            expectNoSecret(error.description)
            expectNoSecret(error.url?.absoluteString ?? "")
            #expect(error.description.contains("refresh_token=***&q=open"), "\(error.description)")
        }
    }
}

extension PrintedSecretsTests {
    @Test func fieldsNamedLikeSecretsArePrintedAsStarsButChallengesAndOtherFieldsStay() throws {
        let request = OutgoingRequest(
            url: try #require(URL(string: "https://api.example.com/")),
            headerFields: [
                HTTPField.Name("X-Api-Key")!: Self.secret, HTTPField.Name("X-Auth-Token")!: Self.secret,
                HTTPField.Name("X-Amz-Security-Token")!: Self.secret, HTTPField.Name("X-Session-Id")!: Self.secret,
                .wwwAuthenticate: "Basic realm=\"visible\"", .accept: "application/json",
            ])
        let printed = request.debugDescription
        expectNoSecret(printed)
        #expect(printed.contains("X-Api-Key: ***"), "\(printed)")
        #expect(printed.contains("WWW-Authenticate: Basic realm=\"visible\""), "\(printed)")
        #expect(printed.contains("Accept: application/json"))
    }
}

extension PrintedSecretsTests {
    @Test func settingsThatHoldSecretsDumpWithoutThem() {
        let proxy = ProxyConfiguration.explicit(.socks5, host: "127.0.0.1", port: 1080, username: "p", password: Self.secret)
        let certificate = ClientCertificate.pem(certificateFile: "/c.pem", keyFile: "/k.pem", passphrase: Self.secret)
        let credential = HTTPCredential(username: "ann", password: Self.secret)
        for value in [proxy, certificate, credential] as [Any] {
            var dumped = ""
            dump(value, to: &dumped)
            expectNoSecret(dumped)
            expectNoSecret(String(reflecting: value))
            expectNoSecret("\(value)")
        }
    }
}
