/// The body of a HAR response.
public struct HARContent: Codable, Sendable, Hashable {
    /// The body's length once decoded (decompressed), in bytes.
    public var size: Int
    /// The bytes saved by compression, when known.
    public var compression: Int?
    /// The response's `Content-Type`, or empty.
    public var mimeType: String
    /// The body, when recorded: text, or base64 when ``encoding`` is `base64`.
    public var text: String?
    /// `base64` when ``text`` is base64, nil for plain text.
    public var encoding: String?
    /// A comment (Curlew notes a body cut to its size limit here).
    public var comment: String?

    /// A body.
    public init(
        size: Int, compression: Int? = nil, mimeType: String, text: String? = nil, encoding: String? = nil,
        comment: String? = nil
    ) {
        self.size = size
        self.compression = compression
        self.mimeType = mimeType
        self.text = text
        self.encoding = encoding
        self.comment = comment
    }
}
