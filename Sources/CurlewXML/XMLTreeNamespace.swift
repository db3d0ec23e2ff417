import CLibXML2

/// A namespace declaration: `xmlns="uri"` (no prefix) or `xmlns:prefix="uri"`.
public struct XMLTreeNamespace: Sendable, Hashable, CustomStringConvertible {
    /// The prefix; nil for a default namespace declaration.
    public let prefix: String?
    /// The namespace URI; empty for `xmlns=""`, which undeclares the default namespace.
    public let uri: String

    /// Creates a declaration value.
    public init(prefix: String?, uri: String) {
        self.prefix = prefix
        self.uri = uri
    }

    /// Copies a libxml2 namespace.
    init(_ namespace: xmlNsPtr) {
        self.init(prefix: LibXML2.string(namespace.pointee.prefix), uri: LibXML2.string(namespace.pointee.href) ?? "")
    }

    public var description: String {
        if let prefix { return "xmlns:\(prefix)=\"\(uri)\"" }
        return "xmlns=\"\(uri)\""
    }
}
