/// A parameter of a form body in a HAR request.
public struct HARPostParameter: Codable, Sendable, Hashable {
    /// The parameter's name.
    public var name: String
    /// The parameter's value, or nil for a file.
    public var value: String?
    /// The name of a posted file.
    public var fileName: String?
    /// The content type of a posted file.
    public var contentType: String?
    /// A comment.
    public var comment: String?

    /// A parameter.
    public init(
        name: String, value: String? = nil, fileName: String? = nil, contentType: String? = nil, comment: String? = nil
    ) {
        self.name = name
        self.value = value
        self.fileName = fileName
        self.contentType = contentType
        self.comment = comment
    }
}
