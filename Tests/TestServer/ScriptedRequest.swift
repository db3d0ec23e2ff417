import Foundation

/// A request as a ``ScriptedHTTPServer`` handler sees it.
public struct ScriptedRequest: Sendable {
    /// The method, such as `GET`.
    public let method: String
    /// The path, without the query, still percent-encoded.
    public let path: String
    /// The query's parameters, decoded as form data; the last value of a repeated name wins.
    public let query: [String: String]
    /// The header fields, names lowercase, values in order.
    public let headers: [String: [String]]
    /// The body.
    public let body: Data

    /// The first value of header `name` (any case).
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]?.first
    }

    /// The `Host` field without the port.
    public var hostName: String {
        guard let host = header("Host") else { return "" }
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") { return String(host[...close]) }
        return String(host.split(separator: ":").first ?? "")
    }

    /// The body decoded as `application/x-www-form-urlencoded`.
    public var form: [String: String] {
        ScriptedRequest.decodeForm(String(decoding: body, as: UTF8.self))
    }

    static func decodeForm(_ text: String) -> [String: String] {
        var values: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (part: Substring) in
                part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(part)
            }
            values[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return values
    }
}
