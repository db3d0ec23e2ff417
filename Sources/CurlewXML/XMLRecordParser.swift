import CLibXML2

/// A libxml2 push parser that turns each top-level occurrence of one element into a small
/// ``XMLTree`` of its own, while keeping nothing else.
///
/// SAX2 callbacks build the record's nodes directly in a fresh libxml2 document; outside a
/// record only the stack of in-scope namespace declarations is kept (so a record declares the
/// namespaces it inherits). Memory is therefore bounded by the largest record (limited by
/// `maximumRecordSize`), by libxml2's own input look-ahead (limited to 10 MB for one token
/// without `XML_PARSE_HUGE`), and by the records parsed from one fed slice.
///
/// Safety matches ``XMLTree``: no network, no DTD loading, no entity substitution. Streams go
/// further and reject entity declarations outright, since an entity could not be expanded
/// into a record without keeping the DTD.
///
/// Not thread-safe: one iterator owns it and calls it from one task at a time.
final class XMLRecordParser {
    private let localName: String
    private let namespace: String?
    private let maximumRecordSize: Int
    private var context: xmlParserCtxtPtr?
    private let errors = XMLErrorCollector()
    private var failure: XMLParseError?

    /// Finished records, oldest first; `takeRecord` consumes them.
    private var records: [XMLTreeElement] = []
    private var nextRecord = 0

    /// The record being built, its current element, depth, size and start line.
    private var recordDocument: xmlDocPtr?
    private var currentNode: xmlNodePtr?
    private var recordDepth = 0
    private var recordSize = 0
    private var recordLine = 0
    /// Text not yet turned into a node, so that adjacent character callbacks make one node.
    private var pendingText: [UInt8] = []
    /// Namespace declarations of the open elements outside any record, outermost first.
    private var namespaceScopes: [[(prefix: String?, uri: String)]] = []
    /// Bytes fed so far.
    private(set) var bytesFed = 0
    /// The first bytes of the document, held until there are enough to check the encoding
    /// family (see `checkEncodingSignature`).
    private var leadingBytes: [UInt8] = []
    private static let encodingSignatureLength = 4
    /// The caller's encoding override, or nil to detect it.
    private let encoding: String?

    /// The approximate bookkeeping cost of one node, counted against the record size.
    private static let nodeOverhead = 64

    /// Creates a parser for top-level elements named `localName` (in `namespace`, when not
    /// nil), failing any record larger than `maximumRecordSize` bytes of names and text.
    init(localName: String, namespace: String?, maximumRecordSize: Int, encoding: String?) throws(XMLParseError) {
        self.localName = localName
        self.namespace = namespace
        self.maximumRecordSize = maximumRecordSize
        LibXML2.initialize()
        if let encoding, !LibXML2.supportsEncoding(encoding) {
            throw XMLParseError(.unsupportedEncoding, "libxml2 does not support the encoding '\(encoding)'")
        }
        var handler = XMLRecordParser.makeSAXHandler()
        guard let context = xmlCreatePushParserCtxt(&handler, nil, nil, 0, nil) else {
            throw XMLParseError(.malformed, "libxml2 could not allocate a push parser")
        }
        self.context = context
        self.encoding = encoding
        if let encoding { xmlCtxtResetPush(context, nil, 0, nil, encoding) }
        _ = xmlCtxtUseOptions(context, LibXML2.safeOptions)
        context.pointee._private = Unmanaged.passUnretained(self).toOpaque()
        errors.mainContext = context
    }

    /// Refuses a document whose first four bytes are one of the UCS-4 patterns libxml2
    /// detects (`<` in any byte order) unless the caller named an encoding: libxml2 2.9 cannot
    /// convert UCS-4, and what it then does depends on how the bytes were sliced (it failed
    /// a document fed whole and accepted it fed in small pieces).
    private func checkEncodingSignature() throws(XMLParseError) {
        guard encoding == nil else { return }
        let ucs4Patterns: [[UInt8]] = [[0, 0, 0, 0x3C], [0x3C, 0, 0, 0], [0, 0, 0x3C, 0], [0, 0x3C, 0, 0]]
        if ucs4Patterns.contains(leadingBytes) {
            let error = XMLParseError(.unsupportedEncoding, "the XML stream starts like a UCS-4 document, which libxml2 cannot read", line: 1, column: 1)
            failure = error
            throw error
        }
    }

    deinit {
        if let context {
            if let document = context.pointee.myDoc { xmlFreeDoc(document) }
            xmlFreeParserCtxt(context)
        }
        if let recordDocument { xmlFreeDoc(recordDocument) }
    }

    /// Parses more input. Call with slices of a few KiB, and take the records in between, to
    /// keep the number of finished records small.
    func feed(_ bytes: UnsafeRawBufferPointer) throws(XMLParseError) {
        guard context != nil, let base = bytes.baseAddress, !bytes.isEmpty else { return }
        bytesFed += bytes.count
        var remaining = UnsafeRawBufferPointer(start: base, count: bytes.count)
        if leadingBytes.count < Self.encodingSignatureLength {
            // The first four bytes name the encoding family; hold them back until there are
            // four, check them, and give them to libxml2 together.
            let taken = min(Self.encodingSignatureLength - leadingBytes.count, remaining.count)
            leadingBytes.append(contentsOf: remaining.prefix(taken))
            remaining = UnsafeRawBufferPointer(rebasing: remaining.dropFirst(taken))
            guard leadingBytes.count == Self.encodingSignatureLength else { return }
            try checkEncodingSignature()
            leadingBytes.withUnsafeBytes { signature in parseChunk(signature) }
            try checkFailure()
        }
        parseChunk(remaining)
        try checkFailure()
    }

    /// Tells libxml2 the input is complete; throws if the document is incomplete.
    func finish() throws(XMLParseError) {
        guard let context else { return }
        if bytesFed == 0 { throw XMLParseError(.malformed, "the XML stream is empty", line: 1, column: 1) }
        if leadingBytes.count < Self.encodingSignatureLength {
            leadingBytes.withUnsafeBytes { shortDocument in parseChunk(shortDocument) }
        }
        _ = xmlParseChunk(context, nil, 0, 1)
        try checkFailure()
    }

    /// Hands bytes to libxml2; the caller checks for a failure afterwards.
    private func parseChunk(_ bytes: UnsafeRawBufferPointer) {
        guard let context, failure == nil, let base = bytes.baseAddress, !bytes.isEmpty else { return }
        _ = xmlParseChunk(context, base.assumingMemoryBound(to: CChar.self), Int32(bytes.count), 0)
    }

    /// The oldest finished record, if any.
    func takeRecord() -> XMLTreeElement? {
        guard nextRecord < records.count else {
            if !records.isEmpty {
                records.removeAll(keepingCapacity: true)
                nextRecord = 0
            }
            return nil
        }
        defer { nextRecord += 1 }
        return records[nextRecord]
    }

    private func checkFailure() throws(XMLParseError) {
        if let failure { throw failure }
        guard let context else { return }
        if context.pointee.wellFormed == 0 {
            let error = errors.primaryError ?? XMLParseError(.malformed, "libxml2 could not parse the stream")
            failure = error
            throw error
        }
    }

    /// Records our own error and stops libxml2; the next check throws it.
    private func fail(_ error: XMLParseError) {
        if failure == nil { failure = error }
        if let context { xmlStopParser(context) }
    }

    private var currentLine: Int {
        guard let context else { return 0 }
        return Int(xmlSAX2GetLineNumber(context))
    }

    private var currentColumn: Int {
        guard let context else { return 0 }
        return Int(xmlSAX2GetColumnNumber(context))
    }

    // MARK: Building records

    private func account(_ bytes: Int) {
        recordSize += bytes
        if recordSize > maximumRecordSize {
            fail(XMLParseError(
                .recordTooLarge,
                "the <\(localName)> element starting at line \(recordLine) is larger than the maximum record size "
                    + "of \(maximumRecordSize) bytes",
                line: currentLine, column: currentColumn))
        }
    }

    fileprivate func startElement(
        localName name: UnsafePointer<xmlChar>, prefix: UnsafePointer<xmlChar>?, uri: UnsafePointer<xmlChar>?,
        namespaces: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?, namespaceCount: Int,
        attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?, attributeCount: Int
    ) {
        guard failure == nil else { return }
        var declared: [(prefix: String?, uri: String)] = []
        if let namespaces {
            for index in 0..<namespaceCount {
                declared.append((LibXML2.string(namespaces[2 * index]), LibXML2.string(namespaces[2 * index + 1]) ?? ""))
            }
        }
        let document: xmlDocPtr
        if let recordDocument {
            document = recordDocument
        } else {
            guard xmlStrEqual(name, localName) != 0,
                namespace == nil || (uri.map { xmlStrEqual($0, namespace) != 0 } ?? false)
            else {
                namespaceScopes.append(declared)
                return
            }
            guard let created = xmlNewDoc("1.0") else {
                return fail(XMLParseError(.malformed, "libxml2 could not allocate a record document"))
            }
            document = created
            recordDocument = created
            recordSize = 0
            recordLine = currentLine
        }
        flushText()
        guard let node = xmlNewDocNode(document, nil, name, nil) else {
            return fail(XMLParseError(.malformed, "libxml2 could not allocate an element"))
        }
        node.pointee.line = UInt16(clamping: currentLine)
        if let parent = currentNode {
            xmlAddChild(parent, node)
        } else {
            xmlDocSetRootElement(document, node)
            // Declare the namespaces the record inherits from the elements around it.
            var seen = Set(declared.map(\.prefix))
            for scope in namespaceScopes.reversed() {
                for declaration in scope where !seen.contains(declaration.prefix) {
                    seen.insert(declaration.prefix)
                    if !declaration.uri.isEmpty { xmlNewNs(node, declaration.uri, declaration.prefix) }
                }
            }
        }
        for declaration in declared { xmlNewNs(node, declaration.uri, declaration.prefix) }
        if uri != nil { xmlSetNs(node, xmlSearchNs(document, node, prefix)) }
        account(Int(xmlStrlen(name)) + XMLRecordParser.nodeOverhead)
        // A record too large stops libxml2 (`fail`), which frees its input buffer; the
        // attribute values point into that buffer, so they must not be read after it.
        guard failure == nil else { return }
        if let attributes { addAttributes(attributes, count: attributeCount, to: node, in: document) }
        currentNode = node
        recordDepth += 1
    }

    /// Adds SAX2 attributes (five pointers each: local name, prefix, URI, value, value end).
    private func addAttributes(
        _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>, count: Int, to node: xmlNodePtr,
        in document: xmlDocPtr
    ) {
        // Stop once a failure has stopped libxml2: the values left point into freed input.
        for index in 0..<count where failure == nil {
            let base = attributes + 5 * index
            guard let name = base[0], let start = base[3], let end = base[4] else { continue }
            var value = Array(UnsafeBufferPointer(start: start, count: max(0, end - start)))
            XMLRecordParser.unescapeAmpersands(&value)
            value.append(0)
            let namespace = base[1].flatMap { xmlSearchNs(document, node, $0) }
            xmlNewNsProp(node, namespace, name, value)
            account(Int(xmlStrlen(name)) + value.count + XMLRecordParser.nodeOverhead)
        }
    }

    /// Without entity substitution, libxml2 hands attribute values to SAX2 with each `&`
    /// written as `&#38;` (it expects `xmlSAX2AttributeNs` to decode them); every other
    /// reference is already replaced, and entity references are rejected in streams.
    static func unescapeAmpersands(_ value: inout [UInt8]) {
        let escape = Array("&#38;".utf8)
        guard value.contains(UInt8(ascii: "&")) else { return }
        var result: [UInt8] = []
        result.reserveCapacity(value.count)
        var index = 0
        while index < value.count {
            if value[index] == UInt8(ascii: "&"), value[index...].starts(with: escape) {
                result.append(UInt8(ascii: "&"))
                index += escape.count
            } else {
                result.append(value[index])
                index += 1
            }
        }
        value = result
    }

    fileprivate func endElement() {
        guard failure == nil else { return }
        guard let node = currentNode, let document = recordDocument else {
            _ = namespaceScopes.popLast()
            return
        }
        flushText()
        recordDepth -= 1
        currentNode = node.pointee.parent.flatMap { $0.pointee.type == XML_ELEMENT_NODE ? $0 : nil }
        guard recordDepth == 0 else { return }
        recordDocument = nil
        currentNode = nil
        do {
            records.append(try XMLTree(adopting: document).root)
        } catch {
            fail(error)
        }
    }

    fileprivate func characters(_ bytes: UnsafePointer<xmlChar>, count: Int) {
        guard failure == nil, recordDocument != nil, count > 0 else { return }
        pendingText.append(contentsOf: UnsafeBufferPointer(start: bytes, count: count))
        account(count)
    }

    private func flushText() {
        guard !pendingText.isEmpty, let parent = currentNode else {
            pendingText.removeAll(keepingCapacity: true)
            return
        }
        if let text = xmlNewDocTextLen(recordDocument, pendingText, Int32(pendingText.count)) {
            xmlAddChild(parent, text)
        }
        pendingText.removeAll(keepingCapacity: true)
    }

    /// Adds a CDATA section, comment or processing instruction built by `make` to the record.
    fileprivate func addLeaf(size: Int, _ make: (xmlDocPtr) -> xmlNodePtr?) {
        guard failure == nil, let document = recordDocument, let parent = currentNode else { return }
        flushText()
        if let leaf = make(document) { xmlAddChild(parent, leaf) }
        account(size + XMLRecordParser.nodeOverhead)
    }

    fileprivate func rejectEntityDeclaration(_ name: UnsafePointer<xmlChar>?) {
        fail(XMLParseError(
            .unsupportedDeclaration,
            "the DTD declares the entity '\(LibXML2.string(name) ?? "?")'; XML element streams do not support "
                + "entity declarations (parse the whole document with XMLTree instead)",
            line: currentLine, column: currentColumn))
    }

    fileprivate func rejectReference(_ name: UnsafePointer<xmlChar>?) {
        fail(XMLParseError(
            .malformed,
            "reference to the undeclared entity '&\(LibXML2.string(name) ?? "?");' (external DTDs are never loaded)",
            line: currentLine, column: currentColumn))
    }

    // MARK: SAX2 callbacks

    /// The parser behind a SAX callback's context (libxml2 passes the parser context itself
    /// as user data; its `_private` points at this object).
    private static func from(_ context: UnsafeMutableRawPointer?) -> XMLRecordParser? {
        guard let context else { return nil }
        guard let parser = context.assumingMemoryBound(to: xmlParserCtxt.self).pointee._private else { return nil }
        return Unmanaged<XMLRecordParser>.fromOpaque(parser).takeUnretainedValue()
    }

    /// The SAX2 callbacks; everything not set here (DTD loading, entity resolution) stays off.
    private static func makeSAXHandler() -> xmlSAXHandler {
        var handler = xmlSAXHandler()
        handler.initialized = UInt32(XML_SAX2_MAGIC)
        handler.startElementNs = { context, name, prefix, uri, namespaceCount, namespaces, attributeCount, _, attributes in
            guard let name else { return }
            XMLRecordParser.from(context)?.startElement(
                localName: name, prefix: prefix, uri: uri, namespaces: namespaces,
                namespaceCount: Int(namespaceCount), attributes: attributes, attributeCount: Int(attributeCount))
        }
        handler.endElementNs = { context, _, _, _ in XMLRecordParser.from(context)?.endElement() }
        handler.characters = { context, bytes, count in
            guard let bytes else { return }
            XMLRecordParser.from(context)?.characters(bytes, count: Int(count))
        }
        handler.ignorableWhitespace = handler.characters
        handler.cdataBlock = { context, bytes, count in
            guard let bytes else { return }
            XMLRecordParser.from(context)?.addLeaf(size: Int(count)) { xmlNewCDataBlock($0, bytes, count) }
        }
        handler.comment = { context, text in
            guard let text else { return }
            XMLRecordParser.from(context)?.addLeaf(size: Int(xmlStrlen(text))) { xmlNewDocComment($0, text) }
        }
        handler.processingInstruction = { context, target, data in
            guard let target else { return }
            XMLRecordParser.from(context)?.addLeaf(size: Int(xmlStrlen(target)) + Int(xmlStrlen(data))) {
                xmlNewDocPI($0, target, data)
            }
        }
        handler.entityDecl = { context, name, _, _, _, _ in XMLRecordParser.from(context)?.rejectEntityDeclaration(name) }
        handler.reference = { context, name in XMLRecordParser.from(context)?.rejectReference(name) }
        handler.serror = { data, error in
            guard let error, let parser = XMLRecordParser.from(data) else { return }
            parser.errors.record(error, context: data)
        }
        return handler
    }
}
