import Curlew
import Foundation

/// `--oauth2 TOKENFILE`: Curlew's `OAuth2Authenticator` fed from a JSON file, which is
/// rewritten (mode 0600, atomically) whenever the token is refreshed:
///
/// ```json
/// {"access_token": "…", "refresh_token": "…", "expires_at": 1767225600,
///  "token_url": "https://auth.example.com/token", "client_id": "cli", "client_secret": "…"}
/// ```
///
/// `expires_at` is seconds since 1970 (optional), `client_secret` and `refresh_token` are
/// optional. A file that others may read is refused, as ssh refuses a shared key. The token
/// goes to the request's host only (over https, or to loopback), as the authenticator's
/// `.hosts` scope allows.
struct OAuth2TokenFile: Sendable {
    struct Contents: Codable, Sendable {
        var accessToken: String
        var refreshToken: String?
        var expiresAt: Double?
        var tokenURL: String
        var clientID: String
        var clientSecret: String?
        var scope: String?

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case refreshToken = "refresh_token"
            case expiresAt = "expires_at"
            case tokenURL = "token_url"
            case clientID = "client_id"
            case clientSecret = "client_secret"
            case scope
        }
    }

    let url: URL
    let contents: Contents

    init(path: String) throws(CommandLineError) {
        url = URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
        let data = try InputFile.read(path, for: "--oauth2")
        if PrivateFileWriter.isShared(url.path) {
            throw CommandLineError("--oauth2 \(path): the token file may be read by others; make it private (chmod 600)")
        }
        do {
            contents = try JSONDecoder().decode(Contents.self, from: data)
        } catch {
            throw CommandLineError("--oauth2 \(path): not a token file (JSON with access_token, token_url, client_id)")
        }
        guard let tokenURL = URL(string: contents.tokenURL), tokenURL.scheme != nil, tokenURL.host != nil else {
            throw CommandLineError("--oauth2 \(path): token_url is not a URL")
        }
    }

    /// The authenticator for requests to `target`'s host; it rewrites the file on refresh.
    func authenticator(for target: URL) -> OAuth2Authenticator {
        let credential = OAuth2Credential(
            accessToken: contents.accessToken, refreshToken: contents.refreshToken,
            expiresAt: contents.expiresAt.map { Date(timeIntervalSince1970: $0) })
        let file = self
        return OAuth2Authenticator(
            credential: credential,
            tokenURL: URL(string: contents.tokenURL) ?? target,
            clientID: contents.clientID,
            clientSecret: contents.clientSecret,
            scope: .hosts([target.host ?? ""]),
            onRefresh: { refreshed in try file.save(refreshed) })
    }

    /// Writes the refreshed credential over the file, keeping the client's fields.
    func save(_ credential: OAuth2Credential) throws {
        var updated = contents
        updated.accessToken = credential.accessToken
        updated.refreshToken = credential.refreshToken ?? contents.refreshToken
        updated.expiresAt = credential.expiresAt?.timeIntervalSince1970
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try PrivateFileWriter.write(try encoder.encode(updated), to: url)
    }
}
