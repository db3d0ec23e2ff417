import Foundation

/// A request as a ``ScriptedHTTPServer`` handler sees it.
///
/// What arrived is kept as it arrived (``rawTarget``, ``headerLines``, ``body``), and the parsed
/// views never resolve an ambiguity silently: reading one value of a field or parameter that
/// arrived several times, or a query or form that does not percent-decode, is a complaint, and
/// the server then answers 400 with it instead of the handler's response.
public struct ScriptedRequest: Sendable {
    /// The method, such as `GET`.
    public let method: String
    /// The request target exactly as sent.
    public let rawTarget: String
    /// The path, without the query, still percent-encoded.
    public let path: String
    /// Every header line in order (the name as sent), repeated lines apart.
    public let headerLines: [(name: String, value: String)]
    /// The query's parameters, decoded as form data, in order, duplicates kept.
    public let query: FormPairs
    /// The body.
    public let body: Data
    let complaints: RequestComplaints

    init(method: String, target: String, headerLines: [(name: String, value: String)], body: Data) {
        let complaints = RequestComplaints()
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        self.method = method
        self.rawTarget = target
        self.path = String(parts[0])
        self.headerLines = headerLines
        self.body = body
        self.complaints = complaints
        self.query = FormPairs(parts.count > 1 ? String(parts[1]) : "", what: "query", complaints: complaints)
    }

    /// The value of header `name` (any case). Several lines of it are a complaint (see above).
    public func header(_ name: String) -> String? {
        let lines = headerLines(named: name)
        if lines.count > 1 {
            complaints.add("\(lines.count) '\(name)' lines \(lines) where the handler reads one value")
        }
        return lines.first
    }

    /// The value of every line of header `name` (any case), in order, not joined.
    public func headerLines(named name: String) -> [String] {
        headerLines.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }

    /// The `Host` field without the port.
    public var hostName: String {
        guard let host = header("Host") else { return "" }
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") { return String(host[...close]) }
        return String(host.split(separator: ":").first ?? "")
    }

    /// The body decoded as `application/x-www-form-urlencoded`.
    public var form: FormPairs {
        guard let text = String(data: body, encoding: .utf8) else {
            complaints.add("the form body is not UTF-8")
            return FormPairs("", what: "form", complaints: complaints)
        }
        return FormPairs(text, what: "form", complaints: complaints)
    }
}

/// Decoded `a=1&b=2` pairs, in order, duplicates kept.
public struct FormPairs: Sendable {
    /// The pairs as they came.
    public let pairs: [(name: String, value: String)]
    private let what: String
    private let complaints: RequestComplaints

    init(_ text: String, what: String, complaints: RequestComplaints) {
        self.what = what
        self.complaints = complaints
        if let pairs = ReceivedRequest.parseForm(text) {
            self.pairs = pairs.map { (name: $0.0, value: $0.1) }
        } else {
            self.pairs = []
            complaints.add("the \(what) '\(text)' is not valid percent-encoded UTF-8")
        }
    }

    /// Every value of `name`, in order.
    public func values(named name: String) -> [String] {
        pairs.filter { $0.name == name }.map(\.value)
    }

    /// The value of `name`; several occurrences are a complaint.
    public subscript(name: String) -> String? {
        let values = values(named: name)
        if values.count > 1 {
            complaints.add("\(values.count) '\(name)' \(what) parameters \(values) where the handler reads one value")
        }
        return values.first
    }
}
