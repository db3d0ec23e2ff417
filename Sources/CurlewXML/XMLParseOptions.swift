import CLibXML2

/// How CurlewXML parses a document.
///
/// Whatever the options, parsing is safe: libxml2 never touches the network, never loads an
/// external DTD or external entity (so XXE payloads cannot read local files), and keeps its
/// built-in limits on depth, name and text sizes and entity amplification.
public struct XMLParseOptions: Sendable, Hashable {
    /// The most characters that references to internal entities (`<!ENTITY …>` declared in the
    /// document's DTD) may add to the document's text, in total. A document above it fails
    /// with ``XMLParseError/Kind/entityExpansion``. libxml2 itself stops the exponential
    /// "billion laughs"; this budget also stops the quadratic blowup (one big entity
    /// referenced many times), which libxml2 2.9 accepts. Default: 1 MiB.
    public var maximumEntityExpansion: Int
    /// Drops whitespace-only text between elements (libxml2's `XML_PARSE_NOBLANKS`).
    /// Default: false, so the tree is faithful to the input.
    public var removesBlankText: Bool
    /// An encoding (IANA name, for example "ISO-8859-1") that overrides the document's own
    /// declaration and byte-order mark, as a `charset` from `Content-Type` should
    /// (RFC 7303). Default: nil, which lets the document say.
    public var encoding: String?

    /// Creates options; the defaults suit documents from untrusted servers.
    public init(maximumEntityExpansion: Int = 1 << 20, removesBlankText: Bool = false, encoding: String? = nil) {
        self.maximumEntityExpansion = maximumEntityExpansion
        self.removesBlankText = removesBlankText
        self.encoding = encoding
    }

    /// The libxml2 option bits for these options.
    var libxml2Options: Int32 {
        var options = LibXML2.safeOptions
        if removesBlankText { options |= Int32(XML_PARSE_NOBLANKS.rawValue) }
        return options
    }
}
