import Curlew
import Foundation
import TestServer

/// The test server on a Unix socket, reached under any host name: a request for
/// `http://shop.example.co.uk/…` goes to the socket with that name in its URL and `Host`
/// field, so that cookie rules about names, public suffixes and insecure channels are checked
/// on the wire, against a real server that sets whatever `Set-Cookie` a test asks for
/// (`/response-headers`) and echoes what arrived (`/anything`).
struct NamedHosts {
    let server: TestServer
    let socket: String
    let session: Session

    /// The options that send a request to the socket, with `cookies` when given.
    func options(cookies: RequestCookieStorage? = nil) -> RequestOptions {
        var options = RequestOptions()
        options.unixSocketPath = socket
        options.cookieStorage = cookies
        return options
    }

    /// Has `origin` (`http://host`) answer with these `Set-Cookie` field values, and returns
    /// the cookies the response set as Curlew parsed them.
    @discardableResult
    func set(_ fields: [String], from origin: String, cookies: RequestCookieStorage? = nil) async throws -> [Cookie] {
        let query = fields.map { "Set-Cookie=\(Self.encode($0))" }.joined(separator: "&")
        return try await session.request("\(origin)/response-headers?\(query)", options: options(cookies: cookies)).validate()
            .response.cookies
    }

    /// The `Cookie` lines the server received for a GET of `url`.
    func cookieLines(at url: String, cookies: RequestCookieStorage? = nil) async throws -> [String] {
        let data = try await session.request(url, options: options(cookies: cookies)).validate().data()
        return try Fixtures.echo(data).headerLines(named: "cookie")
    }

    /// The one `Cookie` line the server received for a GET of `url`, or "" when there was none.
    func cookieLine(at url: String, cookies: RequestCookieStorage? = nil) async throws -> String {
        try await cookieLines(at: url, cookies: cookies).joined(separator: " | ")
    }

    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }
}

/// Runs `body` with a server on a socket and a session whose storage is `storage`; removes the
/// socket's folder afterwards.
func withNamedHosts<T: Sendable>(
    storage: (any CookieStorage)?, _ body: (NamedHosts) async throws -> T
) async throws -> T {
    try await withUnixSocketServer { server, path in
        var configuration = SessionConfiguration()
        configuration.cookieStorage = storage
        return try await withSession(configuration: configuration) { session in
            try await body(NamedHosts(server: server, socket: path, session: session))
        }
    }
}
