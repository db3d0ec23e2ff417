/// A parameter of a HAR request's query string, decoded.
public struct HARQueryParameter: Codable, Sendable, Hashable {
    /// The parameter's name.
    public var name: String
    /// The parameter's value (secrets redacted when Curlew records it).
    public var value: String
    /// A comment.
    public var comment: String?

    /// A parameter.
    public init(name: String, value: String, comment: String? = nil) {
        self.name = name
        self.value = value
        self.comment = comment
    }
}
