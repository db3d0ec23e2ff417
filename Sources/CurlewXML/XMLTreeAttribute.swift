import CLibXML2

/// One attribute of an element, copied out of the tree.
public struct XMLTreeAttribute: Sendable, Hashable, CustomStringConvertible {
    /// The qualified name as written, for example `"xml:lang"`.
    public let name: String
    /// The name without its prefix.
    public let localName: String
    /// The namespace prefix, nil for an unprefixed attribute.
    public let prefix: String?
    /// The namespace URI; nil for an unprefixed attribute (unprefixed attributes are in no
    /// namespace, whatever the element's default namespace).
    public let namespaceURI: String?
    /// The normalized value, with character and entity references replaced.
    public let value: String

    /// Creates an attribute value; the tree builds these for you.
    public init(name: String, localName: String, prefix: String?, namespaceURI: String?, value: String) {
        self.name = name
        self.localName = localName
        self.prefix = prefix
        self.namespaceURI = namespaceURI
        self.value = value
    }

    /// Copies a libxml2 attribute.
    init(_ attribute: xmlAttrPtr, document: xmlDocPtr) {
        let localName = LibXML2.string(attribute.pointee.name) ?? ""
        let prefix = attribute.pointee.ns.flatMap { LibXML2.string($0.pointee.prefix) }
        self.init(
            name: prefix.map { "\($0):\(localName)" } ?? localName,
            localName: localName,
            prefix: prefix,
            namespaceURI: attribute.pointee.ns.flatMap { LibXML2.string($0.pointee.href) },
            value: LibXML2.consume(xmlNodeListGetString(document, attribute.pointee.children, 1)) ?? "")
    }

    public var description: String { "\(name)=\"\(value)\"" }
}
