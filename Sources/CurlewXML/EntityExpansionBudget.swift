import CLibXML2

/// Measures how much text references to internal entities add to a parsed document, and
/// rejects the document when the total passes a limit.
///
/// libxml2 keeps entity references as `XML_ENTITY_REF_NODE`s when it does not substitute
/// entities, and expands them only when text is read (`xmlNodeGetContent`,
/// `xmlNodeListGetString`, XPath `string()`). libxml2 2.9 stops the exponential "billion
/// laughs" while parsing, but accepts one large entity referenced many times: 40 KB of input
/// can then read as 100 MB of text. Measuring once, after parsing, makes every later read of
/// the tree bounded. The walk is linear: each entity's size is computed once.
struct EntityExpansionBudget {
    private let document: xmlDocPtr
    private let limit: Int
    private var used = 0
    private var entitySizes: [UnsafeMutableRawPointer: Int] = [:]
    private var entitiesInProgress: Set<UnsafeMutableRawPointer> = []

    /// Throws ``XMLParseError/Kind/entityExpansion`` when the references in `document` expand
    /// to more than `limit` characters in total.
    static func check(_ document: xmlDocPtr, limit: Int) throws(XMLParseError) {
        var budget = EntityExpansionBudget(document: document, limit: max(0, limit))
        try budget.measure(from: document.pointee.children, countingReferences: true)
    }

    private init(document: xmlDocPtr, limit: Int) {
        self.document = document
        self.limit = limit
    }

    /// Walks `first`, its siblings and all their descendants (attribute values included).
    /// With `countingReferences`, each entity reference met adds its expansion to the budget;
    /// otherwise the returned size is what reading the nodes' text would produce.
    @discardableResult
    private mutating func measure(from first: xmlNodePtr?, countingReferences: Bool) throws(XMLParseError) -> Int {
        var size = 0
        var pending: [xmlNodePtr] = []
        if let first { pending.append(first) }
        while let node = pending.popLast() {
            if let next = node.pointee.next { pending.append(next) }
            switch node.pointee.type {
            case XML_ENTITY_REF_NODE:
                let expansion = try expandedSize(ofReference: node)
                size += expansion
                if countingReferences {
                    used += expansion
                    if used > limit { throw overLimit(at: node) }
                }
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if !countingReferences, let content = node.pointee.content {
                    size += Int(xmlStrlen(content))
                }
            case XML_ELEMENT_NODE:
                var attribute = node.pointee.properties
                while let current = attribute {
                    if let value = current.pointee.children { pending.append(value) }
                    attribute = current.pointee.next
                }
                if let children = node.pointee.children { pending.append(children) }
            case XML_DTD_NODE, XML_ENTITY_DECL, XML_ELEMENT_DECL, XML_ATTRIBUTE_DECL:
                break  // declarations: their text is never read as content
            default:
                if let children = node.pointee.children { pending.append(children) }
            }
            if !countingReferences && size > limit { throw overLimit(at: node) }
        }
        return size
    }

    /// The number of characters one entity reference reads as.
    private mutating func expandedSize(ofReference reference: xmlNodePtr) throws(XMLParseError) -> Int {
        guard let name = reference.pointee.name, let entity = xmlGetDocEntity(document, name) else {
            return 0  // an undeclared entity reads as nothing
        }
        let key = UnsafeMutableRawPointer(entity)
        if let known = entitySizes[key] { return known }
        if entitiesInProgress.contains(key) {
            throw XMLParseError(
                .entityExpansion, "entity '\(LibXML2.string(name) ?? "?")' refers to itself",
                line: Int(xmlGetLineNo(reference)))
        }
        entitiesInProgress.insert(key)
        let size = try measure(from: entity.pointee.children, countingReferences: false)
        entitiesInProgress.remove(key)
        entitySizes[key] = size
        return size
    }

    private func overLimit(at node: xmlNodePtr) -> XMLParseError {
        XMLParseError(
            .entityExpansion,
            "entity references expand to more than \(limit) characters (XMLParseOptions."
                + "maximumEntityExpansion); the document looks like a \"billion laughs\" or "
                + "quadratic-blowup attack",
            line: Int(xmlGetLineNo(node)))
    }
}
