import CLibXML2
import Curlew
import Foundation
import Synchronization

/// A parsed XML document: libxml2's tree, wrapped for Swift.
///
/// ```swift
/// let feed = try XMLTree(data: body)
/// let title = feed.root.firstElement(named: "title")?.text
/// let links = try feed.nodes(matching: "//a:link/@href", namespaces: ["a": "http://www.w3.org/2005/Atom"])
/// ```
///
/// The name avoids FoundationXML's `XMLDocument`, so both modules can be imported together.
///
/// **Parsing is safe by default** (see ``XMLParseOptions``): no network, no external DTD or
/// entity loading, libxml2's limits kept, and a budget on entity expansion.
///
/// **Memory.** The document owns the libxml2 tree and frees it (`xmlFreeDoc`) when the last
/// reference goes. Every ``XMLTreeNode`` and ``XMLTreeElement`` holds its document strongly,
/// so a node can outlive the variable that held the document.
///
/// **Concurrency.** An `XMLTree` is `Sendable`: it is immutable after parsing, and node
/// accessors only read libxml2's structures (they never call the few libxml2 functions that
/// lazily write to a document, such as `xmlSearchNs` for the `xml` prefix). XPath evaluation
/// and serialization go through larger parts of libxml2 that are not documented as safe to
/// run concurrently on one document, so they run under a `Mutex` owned by the document:
/// concurrent queries on one document take turns; queries on different documents never
/// contend.
public final class XMLTree: @unchecked Sendable {
    // Safe to share: `pointer` is never mutated after init; reads of the tree are pure, and
    // every libxml2 call that is not a pure read runs under `libxml2Lock`.

    /// The libxml2 document, owned by this object.
    let pointer: xmlDocPtr
    /// The root element's node, validated at parse time.
    private let rootPointer: xmlNodePtr
    /// Serializes XPath evaluation and serialization on this document.
    let libxml2Lock = CurlewMutex<Void>(())

    /// Parses a document from bytes.
    ///
    /// - Throws: ``XMLParseError`` naming the line and column of the first problem, for
    ///   malformed input, an entity-expansion attack or an unknown encoding.
    public init(data: Data, options: XMLParseOptions = XMLParseOptions()) throws(XMLParseError) {
        let parsed: Result<xmlDocPtr, XMLParseError> = data.withUnsafeBytes { bytes in
            Result { () throws(XMLParseError) in try XMLTree.parse(bytes, options: options) }
        }
        let document = try parsed.get()
        do throws(XMLParseError) {
            self.rootPointer = try XMLTree.validatedRoot(of: document)
        } catch {
            xmlFreeDoc(document)
            throw error
        }
        self.pointer = document
    }

    /// Parses a document from text, which is handed to libxml2 as UTF-8.
    ///
    /// An `encoding` declaration inside the text is ignored: the text is already decoded.
    public convenience init(string: String, options: XMLParseOptions = XMLParseOptions()) throws(XMLParseError) {
        var options = options
        options.encoding = "UTF-8"
        try self.init(data: Data(string.utf8), options: options)
    }

    /// Takes ownership of a document built by CurlewXML (the element stream).
    init(adopting document: xmlDocPtr) throws(XMLParseError) {
        do throws(XMLParseError) {
            self.rootPointer = try XMLTree.validatedRoot(of: document)
        } catch {
            xmlFreeDoc(document)
            throw error
        }
        self.pointer = document
    }

    deinit {
        xmlFreeDoc(pointer)
    }

    /// The root element.
    public var root: XMLTreeElement {
        XMLTreeElement(unchecked: XMLTreeNode(document: self, pointer: rootPointer))
    }

    /// The XML version from the declaration, for example "1.0".
    public var version: String? { LibXML2.string(pointer.pointee.version) }

    /// The encoding named by the document's declaration, if any. The tree itself is always
    /// Unicode.
    public var declaredEncoding: String? { LibXML2.string(pointer.pointee.encoding) }

    /// The document serialized as UTF-8 XML text, with an XML declaration.
    ///
    /// - Parameter formatted: Indents the output when true.
    public func xmlString(formatted: Bool = false) -> String {
        libxml2Lock.withLock { _ in
            var memory: UnsafeMutablePointer<xmlChar>?
            var length: Int32 = 0
            xmlDocDumpFormatMemoryEnc(pointer, &memory, &length, "UTF-8", formatted ? 1 : 0)
            return LibXML2.consume(memory) ?? ""
        }
    }

    /// Parses `bytes` with a fresh parser context whose errors go to a collector, never to
    /// stderr. Returns a document that passed the entity-expansion budget.
    private static func parse(_ bytes: UnsafeRawBufferPointer, options: XMLParseOptions) throws(XMLParseError)
        -> xmlDocPtr
    {
        LibXML2.initialize()
        guard let base = bytes.baseAddress, !bytes.isEmpty else {
            throw XMLParseError(.malformed, "the document is empty", line: 1, column: 1)
        }
        guard bytes.count <= Int(Int32.max) else {
            throw XMLParseError(.inputTooLarge, "the document is \(bytes.count) bytes; libxml2 takes at most 2 GiB")
        }
        if let encoding = options.encoding, !LibXML2.supportsEncoding(encoding) {
            throw XMLParseError(.unsupportedEncoding, "libxml2 does not support the encoding '\(encoding)'")
        }
        guard let context = xmlNewParserCtxt() else {
            throw XMLParseError(.malformed, "libxml2 could not allocate a parser context")
        }
        defer { xmlFreeParserCtxt(context) }
        let collector = XMLErrorCollector()
        collector.mainContext = context
        context.pointee._private = Unmanaged.passUnretained(collector).toOpaque()
        context.pointee.sax?.pointee.serror = XMLErrorCollector.handler

        let document = withExtendedLifetime(collector) {
            xmlCtxtReadMemory(
                context, base.assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil,
                options.encoding, options.libxml2Options)
        }
        guard let document else {
            throw collector.primaryError ?? XMLParseError(.malformed, "libxml2 could not parse the document")
        }
        do throws(XMLParseError) {
            try EntityExpansionBudget.check(document, limit: options.maximumEntityExpansion)
        } catch {
            xmlFreeDoc(document)
            throw error
        }
        return document
    }

    /// Checks the document has a root element, and marks the document as UTF-8 when it has no
    /// declared encoding, so that serializing a node does not escape non-ASCII attribute
    /// values as character references (the tree is always UTF-8 inside).
    private static func validatedRoot(of document: xmlDocPtr) throws(XMLParseError) -> xmlNodePtr {
        guard let root = xmlDocGetRootElement(document) else {
            throw XMLParseError(.malformed, "the document has no root element")
        }
        if document.pointee.encoding == nil { document.pointee.encoding = UnsafePointer(xmlStrdup("UTF-8")) }
        return root
    }
}
