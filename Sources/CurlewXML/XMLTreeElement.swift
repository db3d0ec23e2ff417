import CLibXML2

/// An element of an ``XMLTree``, with its name, namespace, attributes, children and text.
///
/// ```swift
/// let channel = document.root.firstElement(named: "channel")
/// for item in channel?.elements(named: "item") ?? [] {
///     print(item.firstElement(named: "title")?.text ?? "", item.attribute("id") ?? "")
/// }
/// ```
///
/// Name lookups come in two forms: `…(named:)` matches the qualified name as written in the
/// document (`"item"`, `"atom:link"`), and `…(localName:namespace:)` matches the local name
/// and, unless the namespace is nil, the namespace URI, whatever prefix the document chose.
public struct XMLTreeElement: Sendable, Hashable, CustomStringConvertible {
    /// The element as a generic node.
    public let node: XMLTreeNode

    /// Wraps a node already known to be an element.
    init(unchecked node: XMLTreeNode) {
        self.node = node
    }

    private var pointer: xmlNodePtr { node.pointer }

    /// The document this element belongs to.
    public var document: XMLTree { node.document }

    /// The qualified name as written, for example `"atom:link"`.
    public var name: String { node.name ?? "" }

    /// The name without its prefix, for example `"link"`.
    public var localName: String { LibXML2.string(pointer.pointee.name) ?? "" }

    /// The namespace prefix, nil when the element has none (it may still be in a default
    /// namespace).
    public var prefix: String? { node.prefix }

    /// The namespace URI, nil when the element is in no namespace.
    public var namespaceURI: String? { node.namespaceURI }

    /// The concatenated text of all descendants, as XPath's `string()` gives it.
    public var text: String { node.text }

    /// The line of the input where the element starts (values above 65535 may read as 65535
    /// for streamed elements).
    public var line: Int { node.line }

    /// The parent element; nil for the root element.
    public var parent: XMLTreeElement? { node.parent?.element }

    /// All child nodes, text and comments included.
    public var children: [XMLTreeNode] { node.children }

    /// The child elements in document order.
    public var childElements: [XMLTreeElement] {
        var elements: [XMLTreeElement] = []
        forEachChildElement { elements.append($0) }
        return elements
    }

    /// The child elements whose qualified name, as written, is `name`.
    public func elements(named name: String) -> [XMLTreeElement] {
        var elements: [XMLTreeElement] = []
        forEachChildElement { if $0.name == name { elements.append($0) } }
        return elements
    }

    /// The child elements with this local name, in the namespace `namespace` when it is not
    /// nil (any namespace, or none, when it is).
    public func elements(localName: String, namespace: String?) -> [XMLTreeElement] {
        var elements: [XMLTreeElement] = []
        forEachChildElement {
            if $0.localName == localName, namespace == nil || $0.namespaceURI == namespace { elements.append($0) }
        }
        return elements
    }

    /// The first child element whose qualified name, as written, is `name`.
    public func firstElement(named name: String) -> XMLTreeElement? {
        var child = pointer.pointee.children
        while let current = child {
            if current.pointee.type == XML_ELEMENT_NODE {
                let element = XMLTreeElement(unchecked: XMLTreeNode(document: document, pointer: current))
                if element.name == name { return element }
            }
            child = current.pointee.next
        }
        return nil
    }

    /// The first child element with this local name (and namespace URI, when not nil).
    public func firstElement(localName: String, namespace: String?) -> XMLTreeElement? {
        elements(localName: localName, namespace: namespace).first
    }

    /// The attributes, in document order.
    public var attributes: [XMLTreeAttribute] {
        var attributes: [XMLTreeAttribute] = []
        var attribute = pointer.pointee.properties
        while let current = attribute {
            attributes.append(XMLTreeAttribute(current, document: document.pointer))
            attribute = current.pointee.next
        }
        return attributes
    }

    /// The value of the attribute whose qualified name, as written, is `name` (`"id"`,
    /// `"xml:lang"`), or nil.
    public func attribute(_ name: String) -> String? {
        attributes.first { $0.name == name }?.value
    }

    /// The value of the attribute with this local name, in the namespace `namespace` (nil:
    /// an attribute without a namespace, which is what unprefixed attributes are).
    public func attribute(localName: String, namespace: String?) -> String? {
        attributes.first { $0.localName == localName && $0.namespaceURI == namespace }?.value
    }

    /// The namespaces declared on this element (`xmlns` and `xmlns:prefix` attributes).
    public var namespaceDeclarations: [XMLTreeNamespace] {
        var declarations: [XMLTreeNamespace] = []
        var namespace = pointer.pointee.nsDef
        while let current = namespace {
            declarations.append(XMLTreeNamespace(current))
            namespace = current.pointee.next
        }
        return declarations
    }

    /// The namespace URI a prefix is bound to here (nil prefix: the default namespace), found
    /// by looking at this element's declarations and then its ancestors'.
    public func namespaceURI(forPrefix prefix: String?) -> String? {
        if prefix == "xml" { return "http://www.w3.org/XML/1998/namespace" }
        var element: XMLTreeElement? = self
        while let current = element {
            if let match = current.namespaceDeclarations.first(where: { $0.prefix == prefix }) {
                return match.uri.isEmpty ? nil : match.uri
            }
            element = current.parent
        }
        return nil
    }

    /// The element serialized as XML text.
    public func xmlString(formatted: Bool = false) -> String { node.xmlString(formatted: formatted) }

    /// The nodes an XPath expression selects relative to this element.
    public func nodes(matching xpath: String, namespaces: [String: String] = [:]) throws(XPathError)
        -> [XMLTreeNode]
    {
        try node.nodes(matching: xpath, namespaces: namespaces)
    }

    /// The elements an XPath expression selects relative to this element.
    public func elements(matching xpath: String, namespaces: [String: String] = [:]) throws(XPathError)
        -> [XMLTreeElement]
    {
        try node.nodes(matching: xpath, namespaces: namespaces).compactMap(\.element)
    }

    /// The XPath string value of an expression evaluated relative to this element.
    public func string(for xpath: String, namespaces: [String: String] = [:]) throws(XPathError) -> String {
        try node.string(for: xpath, namespaces: namespaces)
    }

    public var description: String { node.description }

    private func forEachChildElement(_ body: (XMLTreeElement) -> Void) {
        var child = pointer.pointee.children
        while let current = child {
            if current.pointee.type == XML_ELEMENT_NODE {
                body(XMLTreeElement(unchecked: XMLTreeNode(document: document, pointer: current)))
            }
            child = current.pointee.next
        }
    }
}
