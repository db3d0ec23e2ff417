import Foundation

/// A request as it left a stubbed session, after every adapter: what a server would have
/// received.
///
/// Its header lines are those libcurl would send, in order (`Host` first); its body is read from
/// the request's own upload source (data, file, stream or multipart form). Recorded bodies may
/// hold secrets (tokens, passwords): they live in the ``HTTPStubs`` that recorded them, for
/// the test that owns it, and nowhere else.
public struct RecordedRequest: Sendable, CustomStringConvertible {
    /// The method, such as `GET`.
    public let method: String
    /// The URL the request went to (for a redirect hop, the hop's URL).
    public let url: URL
    /// The header lines, `Name: value`, in the order they would be sent.
    public let headerLines: [String]
    /// The body; empty when the request has none.
    public let body: Data
    /// The stub that answered, or nil when none matched.
    public internal(set) var stub: StubRegistration?

    /// A request (for custom responders and matchers under test).
    public init(method: String, url: URL, headerLines: [String] = [], body: Data = Data()) {
        self.method = method
        self.url = url
        self.headerLines = headerLines
        self.body = body
    }

    /// The value of the first field named `name` (case-insensitive), or nil.
    public func header(_ name: String) -> String? {
        headerValues(name).first
    }

    /// The values of every field named `name` (case-insensitive), in order.
    public func headerValues(_ name: String) -> [String] {
        headerLines.compactMap { line in
            guard let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == name.lowercased() else { return nil }
            return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
    }

    /// The body as UTF-8 text, or nil when it is not valid UTF-8.
    public var bodyText: String? { String(data: body, encoding: .utf8) }

    /// The method and the URL without its query and user information (which may hold secrets).
    public var description: String { "\(method) \(Self.shown(url))" }

    /// `url` without user information and query, for messages.
    static func shown(_ url: URL) -> String {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "(unprintable URL)" }
        let hadQuery = parts.query != nil
        parts.user = nil
        parts.password = nil
        parts.query = nil
        parts.fragment = nil
        return (parts.string ?? "(unprintable URL)") + (hadQuery ? "?…" : "")
    }
}
