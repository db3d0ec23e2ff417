/// The `creator` (or `browser`) object of a HAR log: a program's name and version.
public struct HARCreator: Codable, Sendable, Hashable {
    /// The program's name.
    public var name: String
    /// The program's version.
    public var version: String
    /// A comment.
    public var comment: String?

    /// A program named `name` at `version`.
    public init(name: String, version: String, comment: String? = nil) {
        self.name = name
        self.version = version
        self.comment = comment
    }
}
