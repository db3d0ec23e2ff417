import Foundation

/// What a ``ScriptedHTTPServer`` handler answers.
public struct ScriptedResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The header fields, in order; `Content-Length` is added.
    public var headers: [(String, String)]
    /// The body.
    public var body: Data
    /// Close the connection without answering (the client sees the connection drop).
    public var dropsConnection = false

    /// A response with a body.
    public init(status: Int = 200, headers: [(String, String)] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response of `object`.
    public static func json(_ object: Any, status: Int = 200, headers: [(String, String)] = []) -> ScriptedResponse {
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return ScriptedResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: body)
    }

    /// A plain text response.
    public static func text(_ text: String, status: Int = 200, headers: [(String, String)] = []) -> ScriptedResponse {
        ScriptedResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")] + headers, body: Data(text.utf8))
    }

    /// Closes the connection without a response.
    public static var dropConnection: ScriptedResponse {
        var response = ScriptedResponse(status: 0)
        response.dropsConnection = true
        return response
    }
}
