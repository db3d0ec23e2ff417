import CLibXML2

/// Process-wide libxml2 setup and small helpers shared by the parsers.
///
/// Nothing here installs global error handlers or entity loaders: every parse uses its own
/// parser context with its own structured error handler, so CurlewXML never prints to stderr
/// and never changes the behaviour of other libxml2 users in the process (FoundationXML
/// among them).
enum LibXML2 {
    /// Runs `xmlInitParser` exactly once; Swift initializes static lets thread-safely.
    private static let initialization: Void = { xmlInitParser() }()

    /// Makes sure libxml2 is initialized. Call before creating any libxml2 object.
    static func initialize() { _ = initialization }

    /// The options every CurlewXML parse uses: no network access, and line numbers above
    /// 65535 kept. Deliberately absent: `XML_PARSE_NOENT` (substitute entities, which would
    /// also load external ones), `XML_PARSE_DTDLOAD`, `XML_PARSE_DTDATTR`,
    /// `XML_PARSE_DTDVALID` and `XML_PARSE_HUGE` (which lifts libxml2's size, depth and
    /// amplification limits).
    static let safeOptions: Int32 = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_BIG_LINES.rawValue)

    /// A Swift string from a libxml2 string (always UTF-8), or nil for NULL.
    static func string(_ pointer: UnsafePointer<xmlChar>?) -> String? {
        guard let pointer else { return nil }
        return String(cString: pointer)
    }

    /// A Swift string from a libxml2 string that the caller owns, which is then freed.
    static func consume(_ pointer: UnsafeMutablePointer<xmlChar>?) -> String? {
        guard let pointer else { return nil }
        defer { curlew_xml_free(pointer) }
        return String(cString: pointer)
    }

    /// Whether libxml2 knows a character encoding by this name.
    static func supportsEncoding(_ name: String) -> Bool {
        guard let handler = xmlFindCharEncodingHandler(name) else { return false }
        xmlCharEncCloseFunc(handler)
        return true
    }
}

/// Collects the errors libxml2 reports for one parse through the structured error handler of
/// a parser context.
///
/// A parser context's `_private` field points at the collector (unretained; the parse holds
/// it alive). libxml2 copies `_private` into the temporary contexts it creates to parse
/// entity content, so those errors reach the same collector.
final class XMLErrorCollector {
    /// The context that parses the document itself (as opposed to entity content).
    var mainContext: xmlParserCtxtPtr?
    /// The first error or fatal error reported against the main context.
    private(set) var firstMainError: XMLParseError?
    /// The first error or fatal error reported against any context.
    private(set) var firstError: XMLParseError?
    /// Whether any report said that entity amplification was detected.
    private(set) var sawEntityAmplification = false

    /// The error that best explains a failed parse.
    var primaryError: XMLParseError? { firstMainError ?? firstError }

    /// Records one libxml2 error.
    func record(_ error: UnsafePointer<xmlError>, context: UnsafeMutableRawPointer?) {
        let report = error.pointee
        guard report.level.rawValue >= XML_ERR_ERROR.rawValue else { return }  // ignore warnings
        let code = Int(report.code)
        // libxml2 2.9 reports both entity loops and excessive amplification with this code.
        let amplification = code == Int(XML_ERR_ENTITY_LOOP.rawValue)
        if amplification { sawEntityAmplification = true }
        var message = report.message.map { String(cString: $0) } ?? "unknown libxml2 error"
        while message.last == "\n" || message.last == " " { message.removeLast() }
        let kind: XMLParseError.Kind = amplification ? .entityExpansion : .malformed
        if amplification {
            message = "entity expansion limit exceeded (a \"billion laughs\" style document?): \(message)"
        }
        let parsed = XMLParseError(
            kind, message, line: Int(report.line), column: Int(report.int2), libxml2Code: code)
        if firstError == nil { firstError = parsed }
        if firstMainError == nil, let mainContext, context == UnsafeMutableRawPointer(mainContext) {
            firstMainError = parsed
        }
    }

    /// Records an error found by CurlewXML itself rather than by libxml2.
    func record(_ error: XMLParseError) {
        if firstError == nil { firstError = error }
        if firstMainError == nil { firstMainError = error }
    }

    /// The structured error handler to install in `ctxt->sax->serror`. `data` is the
    /// context's `userData`, which libxml2 sets to the context itself.
    static let handler: xmlStructuredErrorFunc = { data, error in
        guard let data, let error else { return }
        let context = data.assumingMemoryBound(to: xmlParserCtxt.self)
        guard let collectorPointer = context.pointee._private else { return }
        let collector = Unmanaged<XMLErrorCollector>.fromOpaque(collectorPointer).takeUnretainedValue()
        collector.record(error, context: data)
    }
}
