/// A header field of a HAR request or response.
public struct HARHeader: Codable, Sendable, Hashable {
    /// The field's name, as sent.
    public var name: String
    /// The field's value (secrets redacted when Curlew records it).
    public var value: String
    /// A comment.
    public var comment: String?

    /// A field.
    public init(name: String, value: String, comment: String? = nil) {
        self.name = name
        self.value = value
        self.comment = comment
    }
}
