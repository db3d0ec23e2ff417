import Curlew
import Foundation

/// Joins a generated client's server URL with an operation's path, as OpenAPI transports do.
///
/// The operation's path (already percent-encoded by the generated client, with its query) is
/// appended to the server URL's path — so `https://example.com/api` and `/items/1?x=1` make
/// `https://example.com/api/items/1?x=1` — and its query replaces any query of the server URL.
/// A server URL ending in `/` does not double the slash.
enum OpenAPIRequestURL {
    static func join(baseURL: URL, path: String?) throws(CurlewError) -> URL {
        var base = Substring(baseURL.absoluteString)
        if let end = base.firstIndex(where: { $0 == "?" || $0 == "#" }) { base = base[..<end] }
        let operation = path ?? ""
        if base.hasSuffix("/"), operation.hasPrefix("/") { base.removeLast() }
        guard let url = URL(string: base + operation), url.scheme != nil, url.host != nil else {
            throw CurlewError(
                .invalidURL, "cannot join the server URL '\(baseURL.absoluteString)' with the path '\(operation)'",
                url: baseURL)
        }
        return url
    }
}
