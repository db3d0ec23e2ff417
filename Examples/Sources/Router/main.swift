import Curlew
import DemoServer
import Foundation

// An API organised as a router enum, as Alamofire users write it with `URLRequestConvertible`:
// one base endpoint (URL, headers, the token adapter), one case per call, each with its path,
// method, parameters and encoder, and per-case headers. The embedded demo server echoes what
// it received, so the example shows each request as it went on the wire.

/// Adds the app's access token to every request of the API.
struct AccessToken: RequestInterceptor {
    let token: String
    func adapt(_ request: OutgoingRequest, for session: Session) async throws -> OutgoingRequest {
        var request = request
        request.headerFields[.authorization] = "Bearer \(token)"
        return request
    }
}

struct NewNote: Encodable, Sendable {
    let title: String
    let tags: [String]
}

enum NotesAPI: EndpointConvertible {
    case notes(page: Int, tag: String?)
    case note(id: Int)
    case create(NewNote)
    case rename(id: Int, title: String)
    case delete(id: Int)

    /// Where the API lives. An app reads it from its configuration; here, from the environment,
    /// which the example sets once the demo server has a port.
    static let base = Endpoint(ProcessInfo.processInfo.environment["NOTES_API_URL"] ?? "http://127.0.0.1:8080/api/v1")
        .with(header: "Accept", value: "application/json")
        .with(interceptors: [AccessToken(token: "demo-token")])
        .with(timeouts: Timeouts(connect: .seconds(5), idle: .seconds(30)))

    func asEndpoint() throws -> Endpoint {
        switch self {
        case .notes(let page, let tag):
            var parameters: Parameters = ["page": page]
            parameters["tag"] = tag
            return Endpoint("notes", base: Self.base).with(parameters: parameters, encoding: .query)
        case .note(let id):
            return Endpoint("notes/\(id)", base: Self.base).with(header: "If-None-Match", value: "\"v1\"")
        case .create(let note):
            return Endpoint("notes", base: Self.base, method: .post).with(parameters: note, encoder: .json)
        case .rename(let id, let title):
            return Endpoint("notes/\(id)", base: Self.base, method: .patch)
                .with(parameters: ["title": title], encoding: .form)
        case .delete(let id):
            return Endpoint("notes/\(id)", base: Self.base, method: .delete)
        }
    }
}

/// What the demo server echoes back.
struct Echo: Decodable, Sendable {
    let method: String
    let path: String
    let query: String
    let headers: [String: String]
    let body: String
}

let server = try await DemoServer.start()
setenv("NOTES_API_URL", server.url("/api/v1"), 1)
print("Router example — the demo server on 127.0.0.1:\(server.port) echoes each request.\n")

try await withSession { session in
    let calls: [NotesAPI] = [
        .notes(page: 2, tag: "swift"), .note(id: 7), .create(NewNote(title: "Buy milk", tags: ["home"])),
        .rename(id: 7, title: "Buy oat milk"), .delete(id: 7),
    ]
    for call in calls {
        let echo = try await session.request(call).validate().decode(Echo.self)
        let query = echo.query.isEmpty ? "" : "?\(echo.query)"
        print("\(echo.method) \(echo.path)\(query)")
        print("   Authorization: \(echo.headers["authorization"] ?? "-")   Accept: \(echo.headers["accept"] ?? "-")")
        if let match = echo.headers["if-none-match"] { print("   If-None-Match: \(match)") }
        if !echo.body.isEmpty { print("   \(echo.headers["content-type"] ?? "?"): \(echo.body)") }
    }
}
try await server.shutdown()
