/// The body of a HAR request: as text, or as form parameters.
public struct HARPostData: Codable, Sendable, Hashable {
    /// The body's media type, such as `application/json`.
    public var mimeType: String
    /// The parameters of a form body (empty when ``text`` holds the body).
    public var params: [HARPostParameter]
    /// The body as text.
    public var text: String
    /// How ``text`` is encoded: `base64` for a body that is not UTF-8 text (a Curlew
    /// extension, as `content.encoding` is for responses; written as `_encoding`), nil for text.
    public var encoding: String?
    /// A comment.
    public var comment: String?

    /// A body.
    public init(
        mimeType: String, params: [HARPostParameter] = [], text: String, encoding: String? = nil,
        comment: String? = nil
    ) {
        self.mimeType = mimeType
        self.params = params
        self.text = text
        self.encoding = encoding
        self.comment = comment
    }

    enum CodingKeys: String, CodingKey {
        case mimeType, params, text, comment
        case encoding = "_encoding"
    }

    /// Reads a body; `params` and `text` may be missing (some writers leave one out).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        mimeType = try container.decodeIfPresent(String.self, forKey: .mimeType) ?? ""
        params = try container.decodeIfPresent([HARPostParameter].self, forKey: .params) ?? []
        text = try container.decodeIfPresent(String.self, forKey: .text) ?? ""
        encoding = try container.decodeIfPresent(String.self, forKey: .encoding)
        comment = try container.decodeIfPresent(String.self, forKey: .comment)
    }
}
