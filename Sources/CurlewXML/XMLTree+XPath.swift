import CLibXML2

extension XMLTree {
    /// The nodes an XPath 1.0 expression selects, in document order.
    ///
    /// ```swift
    /// let items = try document.nodes(matching: "//a:item", namespaces: ["a": "urn:x"])
    /// ```
    ///
    /// - Parameters:
    ///   - xpath: The expression, evaluated from the document node.
    ///   - namespaces: Prefix to namespace URI bindings used by the expression. Prefixes in an
    ///     XPath expression are independent of the document's own prefixes; a default
    ///     namespace in the document needs a prefix here too.
    /// - Returns: Elements, attributes, text and other nodes. An expression whose result is
    ///   not a node set (for example `count(//a)`) returns an empty array.
    /// - Throws: ``XPathError`` for an invalid expression, an unbound prefix, or a selection of
    ///   namespace nodes (use ``string(for:namespaces:)`` for those).
    public func nodes(matching xpath: String, namespaces: [String: String] = [:]) throws(XPathError)
        -> [XMLTreeNode]
    {
        try evaluateNodes(xpath, namespaces: namespaces, context: nil)
    }

    /// The elements an XPath expression selects, in document order; other selected nodes are
    /// left out.
    public func elements(matching xpath: String, namespaces: [String: String] = [:]) throws(XPathError)
        -> [XMLTreeElement]
    {
        try nodes(matching: xpath, namespaces: namespaces).compactMap(\.element)
    }

    /// The XPath string value of an expression: for a node set, the text of its first node
    /// ("" when empty); for a number or boolean, its XPath string form.
    ///
    /// ```swift
    /// let title = try document.string(for: "/rss/channel/title")
    /// let count = try document.string(for: "count(//item)")   // "3"
    /// ```
    public func string(for xpath: String, namespaces: [String: String] = [:]) throws(XPathError) -> String {
        try evaluateString(xpath, namespaces: namespaces, context: nil)
    }

    /// Evaluates relative to `context` (the document node when nil) and returns the nodes.
    func evaluateNodes(_ xpath: String, namespaces: [String: String], context: xmlNodePtr?) throws(XPathError)
        -> [XMLTreeNode]
    {
        let pointers = try evaluate(xpath, namespaces: namespaces, context: context) {
            (result) throws(XPathError) -> [xmlNodePtr] in
            guard result.pointee.type == XPATH_NODESET, let set = result.pointee.nodesetval,
                let table = set.pointee.nodeTab
            else { return [] }
            var nodes: [xmlNodePtr] = []
            nodes.reserveCapacity(Int(set.pointee.nodeNr))
            for index in 0..<Int(max(0, set.pointee.nodeNr)) {
                guard let node = table[index] else { continue }
                if node.pointee.type == XML_NAMESPACE_DECL {
                    // XPath namespace nodes are temporary copies freed with the result.
                    throw XPathError(
                        expression: xpath,
                        message: "the expression selects namespace nodes, which cannot be returned as nodes; "
                            + "use string(for:) or element.namespaceDeclarations")
                }
                nodes.append(node)
            }
            return nodes
        }
        return pointers.map { XMLTreeNode(document: self, pointer: $0) }
    }

    /// Evaluates relative to `context` and casts the result to an XPath string.
    func evaluateString(_ xpath: String, namespaces: [String: String], context: xmlNodePtr?) throws(XPathError)
        -> String
    {
        try evaluate(xpath, namespaces: namespaces, context: context) { result in
            LibXML2.consume(xmlXPathCastToString(result)) ?? ""
        }
    }

    /// Evaluates an expression under the document's lock, with a fresh XPath context whose
    /// errors go to a collector (never to stderr), and hands the result to `body` before the
    /// result is freed.
    private func evaluate<R>(
        _ xpath: String, namespaces: [String: String], context: xmlNodePtr?,
        _ body: (xmlXPathObjectPtr) throws(XPathError) -> R
    ) throws(XPathError) -> R {
        LibXML2.initialize()
        var outcome: Result<R, XPathError>?
        libxml2Lock.withLock { _ in
            guard let xpathContext = xmlXPathNewContext(pointer) else {
                outcome = .failure(XPathError(expression: xpath, message: "libxml2 could not allocate an XPath context"))
                return
            }
            defer { xmlXPathFreeContext(xpathContext) }
            let errors = XPathErrorCollector()
            xpathContext.pointee.userData = Unmanaged.passUnretained(errors).toOpaque()
            xpathContext.pointee.error = XPathErrorCollector.handler
            for (prefix, uri) in namespaces where xmlXPathRegisterNs(xpathContext, prefix, uri) != 0 {
                outcome = .failure(XPathError(
                    expression: xpath, message: "cannot bind the namespace prefix '\(prefix)' to '\(uri)'"))
                return
            }
            if let context { xpathContext.pointee.node = context }
            let result = withExtendedLifetime(errors) { xmlXPathEval(xpath, xpathContext) }
            guard let result else {
                outcome = .failure(XPathError(
                    expression: xpath, message: errors.firstMessage ?? "the expression could not be evaluated"))
                return
            }
            defer { xmlXPathFreeObject(result) }
            outcome = Result { () throws(XPathError) in try body(result) }
        }
        guard let outcome else {
            throw XPathError(expression: xpath, message: "the expression was not evaluated")
        }
        return try outcome.get()
    }
}

/// Receives the errors of one XPath evaluation through `xmlXPathContext.error`.
private final class XPathErrorCollector {
    var firstMessage: String?

    static let handler: xmlStructuredErrorFunc = { data, error in
        guard let data, let error else { return }
        let collector = Unmanaged<XPathErrorCollector>.fromOpaque(data).takeUnretainedValue()
        guard collector.firstMessage == nil else { return }
        // With a structured handler installed, libxml2 2.9 leaves `message` empty and only
        // sets the code (offset by XML_XPATH_EXPRESSION_OK) and the position in `int1`.
        var message = error.pointee.message.map { String(cString: $0) }
            ?? describe(xpathCode: Int(error.pointee.code) - Int(XML_XPATH_EXPRESSION_OK.rawValue))
        while message.last == "\n" || message.last == " " { message.removeLast() }
        if error.pointee.str1 != nil { message += " (at offset \(error.pointee.int1))" }
        collector.firstMessage = message
    }

    private static func describe(xpathCode code: Int) -> String {
        switch UInt32(clamping: max(0, code)) {
        case XPATH_NUMBER_ERROR.rawValue: return "invalid number"
        case XPATH_UNFINISHED_LITERAL_ERROR.rawValue: return "unfinished string literal"
        case XPATH_START_LITERAL_ERROR.rawValue: return "expected a string literal"
        case XPATH_VARIABLE_REF_ERROR.rawValue, XPATH_UNDEF_VARIABLE_ERROR.rawValue: return "undefined variable"
        case XPATH_INVALID_PREDICATE_ERROR.rawValue: return "invalid predicate"
        case XPATH_EXPR_ERROR.rawValue: return "invalid expression"
        case XPATH_UNCLOSED_ERROR.rawValue: return "missing closing bracket or parenthesis"
        case XPATH_UNKNOWN_FUNC_ERROR.rawValue: return "unknown function"
        case XPATH_INVALID_OPERAND.rawValue: return "invalid operand"
        case XPATH_INVALID_TYPE.rawValue: return "invalid type"
        case XPATH_INVALID_ARITY.rawValue: return "wrong number of arguments to a function"
        case XPATH_MEMORY_ERROR.rawValue: return "out of memory"
        case XPATH_UNDEF_PREFIX_ERROR.rawValue: return "undefined namespace prefix; pass it in `namespaces:`"
        case XPATH_ENCODING_ERROR.rawValue: return "invalid encoding in the expression"
        case XPATH_INVALID_CHAR_ERROR.rawValue: return "invalid character in the expression"
        case XPATH_STACK_ERROR.rawValue: return "evaluation stack error"
        case XPATH_OP_LIMIT_EXCEEDED.rawValue: return "operation limit exceeded"
        case XPATH_RECURSION_LIMIT_EXCEEDED.rawValue: return "recursion limit exceeded"
        default: return "XPath error \(code)"
        }
    }
}
