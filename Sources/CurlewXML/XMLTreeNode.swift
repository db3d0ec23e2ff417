import CLibXML2

/// One node of an ``XMLTree``: an element, an attribute, text, CDATA, a comment, a processing
/// instruction or an entity reference.
///
/// A node holds its document alive. Nodes compare equal when they are the same node of the
/// same document.
public struct XMLTreeNode: @unchecked Sendable, Hashable, CustomStringConvertible {
    // Safe to send: `document` owns the tree and never changes it after parsing; a node only
    // reads it (see XMLTree's concurrency notes).

    /// What a node is.
    public enum Kind: Sendable, Hashable {
        /// An element, such as `<item>`.
        case element
        /// An attribute, selected by XPath (`//@href`).
        case attribute
        /// Character data.
        case text
        /// A `<![CDATA[…]]>` section.
        case cdata
        /// A comment.
        case comment
        /// A processing instruction, such as `<?xml-stylesheet …?>`.
        case processingInstruction
        /// A reference to an entity declared in the document's DTD, such as `&company;`.
        case entityReference
        /// The document node itself (XPath `/`).
        case document
        /// Any other libxml2 node type (DTD declarations and the like).
        case other
    }

    /// The document this node belongs to.
    public let document: XMLTree
    /// The libxml2 node.
    let pointer: xmlNodePtr

    init(document: XMLTree, pointer: xmlNodePtr) {
        self.document = document
        self.pointer = pointer
    }

    /// What this node is.
    public var kind: Kind {
        switch pointer.pointee.type {
        case XML_ELEMENT_NODE: return .element
        case XML_ATTRIBUTE_NODE: return .attribute
        case XML_TEXT_NODE: return .text
        case XML_CDATA_SECTION_NODE: return .cdata
        case XML_COMMENT_NODE: return .comment
        case XML_PI_NODE: return .processingInstruction
        case XML_ENTITY_REF_NODE: return .entityReference
        case XML_DOCUMENT_NODE, XML_HTML_DOCUMENT_NODE: return .document
        default: return .other
        }
    }

    /// This node as an element, when it is one.
    public var element: XMLTreeElement? {
        kind == .element ? XMLTreeElement(unchecked: self) : nil
    }

    /// The qualified name as written (`prefix:local`) of an element or attribute; the target
    /// of a processing instruction; the name of an entity reference; nil for other nodes.
    public var name: String? {
        switch kind {
        case .element, .attribute:
            guard let local = localName else { return nil }
            if let prefix { return "\(prefix):\(local)" }
            return local
        case .processingInstruction, .entityReference:
            return LibXML2.string(pointer.pointee.name)
        default:
            return nil
        }
    }

    /// The name without its prefix, for elements and attributes.
    public var localName: String? {
        switch kind {
        case .element, .attribute: return LibXML2.string(pointer.pointee.name)
        default: return nil
        }
    }

    /// The namespace prefix of an element or attribute, nil when it has none.
    public var prefix: String? {
        guard kind == .element || kind == .attribute, let namespace = pointer.pointee.ns else { return nil }
        return LibXML2.string(namespace.pointee.prefix)
    }

    /// The namespace URI of an element or attribute, nil when it is in no namespace.
    public var namespaceURI: String? {
        guard kind == .element || kind == .attribute, let namespace = pointer.pointee.ns else { return nil }
        return LibXML2.string(namespace.pointee.href)
    }

    /// The text of the node: for an element, the concatenated text of all its descendants
    /// (internal entity references expanded); for an attribute, its value; for text, CDATA,
    /// comments and processing instructions, their content.
    public var text: String {
        LibXML2.consume(xmlNodeGetContent(pointer)) ?? ""
    }

    /// The parent: the element (or document) containing this node; for an attribute, the
    /// element that carries it.
    public var parent: XMLTreeNode? {
        guard kind != .document, let parent = pointer.pointee.parent else { return nil }
        return XMLTreeNode(document: document, pointer: parent)
    }

    /// The child nodes in document order: elements, text, CDATA, comments and so on. Empty
    /// for attributes and leaf nodes.
    public var children: [XMLTreeNode] {
        guard kind == .element || kind == .document else { return [] }
        var nodes: [XMLTreeNode] = []
        var child = pointer.pointee.children
        while let current = child {
            nodes.append(XMLTreeNode(document: document, pointer: current))
            child = current.pointee.next
        }
        return nodes
    }

    /// The line of the input where the node starts, from 1; 0 when unknown.
    public var line: Int { max(0, Int(xmlGetLineNo(pointer))) }

    /// The node serialized as XML text (an attribute as `name="value"`).
    public func xmlString(formatted: Bool = false) -> String {
        document.libxml2Lock.withLock { _ in
            guard let buffer = xmlBufferCreate() else { return "" }
            defer { xmlBufferFree(buffer) }
            xmlNodeDump(buffer, document.pointer, pointer, 0, formatted ? 1 : 0)
            return LibXML2.string(xmlBufferContent(buffer)) ?? ""
        }
    }

    /// The nodes an XPath expression selects, evaluated with this node as the context node
    /// (so `title` and `./title` are relative to it). See ``XMLTree/nodes(matching:namespaces:)``.
    public func nodes(matching xpath: String, namespaces: [String: String] = [:]) throws(XPathError)
        -> [XMLTreeNode]
    {
        try document.evaluateNodes(xpath, namespaces: namespaces, context: pointer)
    }

    /// The XPath string value of an expression evaluated with this node as the context node.
    public func string(for xpath: String, namespaces: [String: String] = [:]) throws(XPathError) -> String {
        try document.evaluateString(xpath, namespaces: namespaces, context: pointer)
    }

    public static func == (lhs: XMLTreeNode, rhs: XMLTreeNode) -> Bool {
        lhs.pointer == rhs.pointer && lhs.document === rhs.document
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(pointer)
    }

    public var description: String {
        switch kind {
        case .element: return "<\(name ?? "?")> (line \(line))"
        case .attribute: return "@\(name ?? "?")=\"\(text)\""
        case .text: return "text \"\(text)\""
        case .cdata: return "CDATA \"\(text)\""
        case .comment: return "<!--\(text)-->"
        case .processingInstruction: return "<?\(name ?? "?") \(text)?>"
        case .entityReference: return "&\(name ?? "?");"
        case .document: return "document"
        case .other: return "node of libxml2 type \(pointer.pointee.type.rawValue)"
        }
    }
}
