import Foundation
import Testing
import TestServer

/// `--session NAME` and `--oauth2 TOKENFILE`: state kept between runs, in private files.
@Suite(.temporaryFolders) struct CLISessionTests {
    static func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require(attributes[.posixPermissions] as? Int) & 0o777
    }

    @Test func sessionKeepsCookiesAndHeadersButNotCredentials() async throws {
        try await withServer { server in
            let home = try TemporaryFolder.make()
            let environment = ["HOME": home.path]
            let first = try await CLI.run(
                ["--session", "work", "-F", server.url("/cookies/set?flavour=oat").absoluteString, "X-Team:blue", "Authorization:Bearer s3cret"],
                environment: environment)
            #expect(first.status == 0, "\(first.errorOutput)")

            let second = try await CLI.run(["--session", "work", server.url("/get").absoluteString], environment: environment)
            let headers = try #require(try second.json()["headers"] as? [String: String])
            #expect(headers["cookie"] == "flavour=oat")
            #expect(headers["x-team"] == "blue")
            #expect(headers["authorization"] == nil)

            let directory = home.appendingPathComponent(".config/curlew/sessions/work")
            #expect(try Self.mode(directory.path) == 0o700)
            for file in ["cookies.json", "headers.json"] {
                let path = directory.appendingPathComponent(file).path
                #expect(try Self.mode(path) == 0o600, "\(file)")
                #expect(!(try String(contentsOfFile: path, encoding: .utf8)).contains("s3cret"))
            }

            let other = try await CLI.run(["--session", "other", server.url("/get").absoluteString], environment: environment)
            #expect((try other.json()["headers"] as? [String: String])?["cookie"] == nil)
        }
    }

    @Test func oauth2RefreshesAnExpiredTokenAndRewritesTheFile() async throws {
        let oauth = try await OAuth2TestServer.start()
        let tokens = oauth.issueTokens(lifetime: .seconds(-60))
        let folder = try TemporaryFolder.make()
        let file = folder.appendingPathComponent("token.json")
        let contents: [String: Any] = [
            "access_token": tokens.accessToken, "refresh_token": tokens.refreshToken,
            "expires_at": tokens.expiresAt.timeIntervalSince1970, "token_url": oauth.tokenURL.absoluteString,
            "client_id": oauth.clientID, "client_secret": oauth.clientSecret ?? "",
        ]
        try JSONSerialization.data(withJSONObject: contents).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)

        let run = try await CLI.run(["--check-status", "--oauth2", file.path, oauth.url("/resource/me").absoluteString])
        #expect(run.status == 0, "\(run.errorOutput)")
        let rewritten = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        let newToken = try #require(rewritten["access_token"] as? String)
        #expect(newToken != tokens.accessToken)
        #expect(try run.json()["token"] as? String == newToken)
        #expect(rewritten["client_id"] as? String == oauth.clientID)
        #expect(rewritten["token_url"] as? String == oauth.tokenURL.absoluteString)
        #expect(try Self.mode(file.path) == 0o600)
        #expect(!run.output.contains(tokens.refreshToken))
        await oauth.shutdown()
    }

    @Test func oauth2RefusesATokenFileOthersMayRead() async throws {
        let file = try TemporaryFolder.make().appendingPathComponent("token.json")
        try Data(#"{"access_token":"a","token_url":"http://127.0.0.1:1/t","client_id":"c"}"#.utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        let run = try await CLI.run(["--oauth2", file.path, "http://127.0.0.1:1/x"])
        #expect(run.status == 64)
        #expect(run.errorLines == ["curlew: error: --oauth2 \(file.path): the token file may be read by others; make it private (chmod 600)"])
    }
}
