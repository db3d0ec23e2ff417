import Foundation
import HTTPTypes

/// A rule a request must meet for a stub to answer it: by method, URL (exact, prefix or
/// regular expression), path, query item, header field or body. Combine rules with `&&`.
///
/// ```swift
/// stubs.register(.method(.post) && .url("https://api.example.com/items") && .header("Authorization", "Bearer t1"),
///                responses: [.status(201)])
/// ```
public struct RequestMatcher: Sendable, CustomStringConvertible {
    /// How the rule reads in messages, such as `GET https://api.example.com/items`.
    public let description: String
    private let test: @Sendable (RecordedRequest) -> Bool

    /// A rule of your own: `test` decides, `description` names it in messages.
    public init(_ description: String, _ test: @escaping @Sendable (RecordedRequest) -> Bool) {
        self.description = description
        self.test = test
    }

    /// Whether `request` meets the rule.
    public func matches(_ request: RecordedRequest) -> Bool { test(request) }

    /// Every request.
    public static var any: RequestMatcher { RequestMatcher("any request") { _ in true } }

    /// Requests with `method`.
    public static func method(_ method: HTTPRequest.Method) -> RequestMatcher {
        RequestMatcher(method.rawValue) { $0.method == method.rawValue }
    }

    /// Requests to exactly `url`, query included (compared as parsed URLs' text, so
    /// `https://host` and `https://host/` differ as they do on the wire).
    public static func url(_ url: String) -> RequestMatcher {
        let expected = URL(string: url)?.absoluteString ?? url
        return RequestMatcher(url) { $0.url.absoluteString == expected }
    }

    /// Requests whose URL starts with `prefix`.
    public static func urlPrefix(_ prefix: String) -> RequestMatcher {
        RequestMatcher("\(prefix)*") { $0.url.absoluteString.hasPrefix(prefix) }
    }

    /// Requests whose URL contains a match of the regular expression `pattern` (anchor it with
    /// `^` and `$` to match the whole URL). Throws when `pattern` is not a valid expression.
    public static func urlMatching(_ pattern: String) throws -> RequestMatcher {
        _ = try Regex(pattern)
        return RequestMatcher("URL ~ /\(pattern)/") { request in
            guard let regex = try? Regex(pattern) else { return false }
            return request.url.absoluteString.contains(regex)
        }
    }

    /// Requests whose URL path is exactly `path`, on any host.
    public static func path(_ path: String) -> RequestMatcher {
        RequestMatcher("path \(path)") { $0.url.path(percentEncoded: true) == path }
    }

    /// Requests with a query item `name` (with `value`, when given).
    public static func query(_ name: String, _ value: String? = nil) -> RequestMatcher {
        RequestMatcher("query \(name)\(value.map { "=\($0)" } ?? "")") { request in
            let items = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            return items.contains { $0.name == name && (value == nil || $0.value == value) }
        }
    }

    /// Requests with a header field `name` (case-insensitive), with `value` when given. The
    /// description names the field, never its value (which may be a secret).
    public static func header(_ name: String, _ value: String? = nil) -> RequestMatcher {
        RequestMatcher("header \(name)\(value == nil ? "" : " (with a given value)")") { request in
            let values = request.headerValues(name)
            return value.map { values.contains($0) } ?? !values.isEmpty
        }
    }

    /// Requests whose body is exactly `data`.
    public static func body(_ data: Data) -> RequestMatcher {
        RequestMatcher("body of \(data.count) bytes") { $0.body == data }
    }

    /// Requests whose body is exactly the UTF-8 `text`.
    public static func body(_ text: String) -> RequestMatcher {
        RequestMatcher("body of \(text.utf8.count) bytes") { $0.body == Data(text.utf8) }
    }

    /// Requests whose body contains the UTF-8 `text`.
    public static func bodyContains(_ text: String) -> RequestMatcher {
        RequestMatcher("body containing \(text.utf8.count) given bytes") { $0.body.range(of: Data(text.utf8)) != nil }
    }

    /// Requests that meet both rules.
    public static func && (lhs: RequestMatcher, rhs: RequestMatcher) -> RequestMatcher {
        RequestMatcher("\(lhs.description) \(rhs.description)") { lhs.matches($0) && rhs.matches($0) }
    }
}
