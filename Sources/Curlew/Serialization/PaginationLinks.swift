import Foundation
import HTTPTypes

/// The pagination links of a response's `Link` header (RFC 8288), as GitHub and many other
/// APIs send them:
///
/// ```
/// Link: <https://api.example.com/items?page=3>; rel="next", <https://api.example.com/items?page=9>; rel="last"
/// ```
///
/// ```swift
/// var url: URL? = firstPageURL
/// while let page = url {
///     let response = try await session.request(page).serialized(by: .collection(of: Item.self))
///     items += response.value
///     url = PaginationLinks(response.head, baseURL: response.url).next
/// }
/// ```
public struct PaginationLinks: Sendable, Hashable {
    /// Every link by relation type (lowercased); when a relation appears twice, the first wins.
    public let all: [String: URL]

    /// Parses the `Link` fields of `head`; relative targets resolve against `baseURL`.
    /// Malformed entries are skipped.
    public init(_ head: HTTPResponse, baseURL: URL? = nil) {
        let values = HTTPField.Name("Link").map { head.headerFields[values: $0] } ?? []
        self.init(linkHeaderValues: values, baseURL: baseURL)
    }

    /// Parses `Link` header values.
    public init(linkHeaderValues values: [String], baseURL: URL? = nil) {
        var links: [String: URL] = [:]
        for value in values {
            for entry in PaginationLinks.splitEntries(value) {
                guard let (target, relations) = PaginationLinks.parse(entry),
                    let url = URL(string: target, relativeTo: baseURL)?.absoluteURL
                else { continue }
                for relation in relations where links[relation] == nil { links[relation] = url }
            }
        }
        self.all = links
    }

    /// The `rel="next"` link.
    public var next: URL? { all["next"] }
    /// The `rel="prev"` (or `"previous"`) link.
    public var previous: URL? { all["prev"] ?? all["previous"] }
    /// The `rel="first"` link.
    public var first: URL? { all["first"] }
    /// The `rel="last"` link.
    public var last: URL? { all["last"] }

    /// Splits a header value at the commas between entries, not those inside `<…>` or quotes.
    private static func splitEntries(_ value: String) -> [Substring] {
        var entries: [Substring] = []
        var start = value.startIndex
        var inAngle = false
        var inQuotes = false
        for index in value.indices {
            switch value[index] {
            case "<" where !inQuotes: inAngle = true
            case ">" where !inQuotes: inAngle = false
            case "\"" where !inAngle: inQuotes.toggle()
            case "," where !inAngle && !inQuotes:
                entries.append(value[start..<index])
                start = value.index(after: index)
            default: break
            }
        }
        entries.append(value[start...])
        return entries
    }

    /// `<target>; rel="a b"; other=x` → the target and its relation types.
    private static func parse(_ entry: Substring) -> (String, [String])? {
        let trimmed = entry.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("<"), let close = trimmed.firstIndex(of: ">") else { return nil }
        let target = String(trimmed[trimmed.index(after: trimmed.startIndex)..<close])
        var relations: [String] = []
        for parameter in trimmed[trimmed.index(after: close)...].split(separator: ";") {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "rel" else { continue }
            let value = pair[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            relations += value.lowercased().split(separator: " ").map(String.init)
        }
        return relations.isEmpty ? nil : (target, relations)
    }
}
