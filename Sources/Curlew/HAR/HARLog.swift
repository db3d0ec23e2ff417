/// The `log` object of a HAR file: who wrote it and the recorded entries.
public struct HARLog: Codable, Sendable, Hashable {
    /// The format's version: `1.2` when Curlew writes it.
    public var version: String
    /// The program that wrote the file.
    public var creator: HARCreator
    /// The browser that made the requests, when a browser did.
    public var browser: HARCreator?
    /// The exchanges, in the order they started.
    public var entries: [HAREntry]
    /// A comment.
    public var comment: String?

    /// A log; `version` defaults to `1.2`.
    public init(
        version: String = "1.2", creator: HARCreator, browser: HARCreator? = nil, entries: [HAREntry] = [],
        comment: String? = nil
    ) {
        self.version = version
        self.creator = creator
        self.browser = browser
        self.entries = entries
        self.comment = comment
    }
}
