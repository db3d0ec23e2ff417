import Curlew
import Foundation
import HTTPTypes

/// What the positional arguments and items ask for: the method, URL, headers and body, before
/// any session exists. Built by ``RequestPlan/init(arguments:bodyStyle:standardInput:)``.
struct RequestPlan {
    /// How data fields (`field=value`, `field:=json`) become a body.
    enum BodyStyle {
        case json, form, multipart
    }

    /// The body as it will be sent, and what printing it shows.
    enum Body {
        case none
        case data(Data, contentType: String?)
        case file(URL)
        case multipart(MultipartFormData)
    }

    var method: HTTPRequest.Method
    var url: URL
    var headers: [(name: String, value: String)]
    var body: Body

    /// The methods recognised in lower case too; any other word in capitals is a method as well.
    private static let knownMethods: Set<String> = [
        "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT", "QUERY",
    ]

    /// Parses `[METHOD] URL [ITEM ...]`. `standardInput` is read (once) for a body when no item
    /// gives one; nil means it is not used.
    init(
        arguments: [String], bodyStyle requested: BodyStyle, jsonRequested: Bool,
        standardInput: (() -> Data)?
    ) throws(CommandLineError) {
        var rest = arguments[...]
        var method: HTTPRequest.Method?
        if rest.count >= 2, let first = rest.first, Self.isMethod(first) {
            guard let parsed = HTTPRequest.Method(first.uppercased()) else {
                throw CommandLineError("invalid method '\(first)'")
            }
            method = parsed
            rest = rest.dropFirst()
        }
        guard let urlText = rest.first else { throw CommandLineError("no URL given (usage: curlew [METHOD] URL [ITEM ...])") }
        var url = try Self.url(from: urlText)
        let items = try rest.dropFirst().map { item throws(CommandLineError) in try RequestItem.parse(item) }

        var headers: [(name: String, value: String)] = []
        var query: [(String, String)] = []
        var fields: [RequestItem] = []
        var bodyFile: String?
        var style = requested
        for item in items {
            switch item {
            case .header(let name, let value): headers.append((name, value))
            case .query(let name, let value): query.append((name, value))
            case .stringField, .jsonField: fields.append(item)
            case .fileField:
                fields.append(item)
                style = .multipart
            case .bodyFile(let path):
                guard bodyFile == nil else { throw CommandLineError("more than one '@file' body given") }
                bodyFile = path
            }
        }
        if !query.isEmpty { url = try Self.url(url, appending: query) }

        var body = Body.none
        if let bodyFile {
            guard fields.isEmpty else {
                throw CommandLineError("a '@\(bodyFile)' body cannot be mixed with data fields (field=value)")
            }
            let fileURL = URL(fileURLWithPath: (bodyFile as NSString).expandingTildeInPath)
            _ = try InputFile.read(bodyFile, for: "body '@\(bodyFile)'")
            body = .file(fileURL)
        } else if !fields.isEmpty {
            body = try Self.body(fields: fields, style: style)
        } else if let standardInput {
            let data = standardInput()
            if !data.isEmpty { body = .data(data, contentType: jsonRequested ? "application/json" : nil) }
        }
        if jsonRequested || (style == .json && !fields.isEmpty) {
            Self.addDefault(&headers, "Accept", "application/json, */*;q=0.5")
            if case .data(_, let type) = body, type == nil {
                Self.addDefault(&headers, "Content-Type", "application/json")
            }
        }
        self.method = method ?? (Self.hasBody(body) ? .post : .get)
        self.url = url
        self.headers = headers
        self.body = body
    }

    private static func hasBody(_ body: Body) -> Bool {
        if case .none = body { return false }
        return true
    }

    private static func isMethod(_ word: String) -> Bool {
        guard !word.isEmpty, word.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return knownMethods.contains(word.uppercased()) || word == word.uppercased()
    }

    private static func addDefault(_ headers: inout [(name: String, value: String)], _ name: String, _ value: String) {
        if !headers.contains(where: { $0.name.lowercased() == name.lowercased() }) {
            headers.append((name, value))
        }
    }

    /// httpie's URL shorthands: `:3000/x` is `http://localhost:3000/x`, no scheme means `http://`.
    static func url(from text: String) throws(CommandLineError) -> URL {
        var candidate = text
        if text.hasPrefix(":") {
            let rest = text.dropFirst()
            candidate = rest.hasPrefix("/") || rest.isEmpty ? "http://localhost" + rest : "http://localhost:" + rest
        } else if !candidate.contains("://") {
            candidate = "http://" + candidate
        }
        guard let url = URL(string: candidate), let scheme = url.scheme?.lowercased(),
            let host = url.host, !host.isEmpty
        else {
            throw CommandLineError("malformed URL '\(text)'")
        }
        guard ["http", "https", "http+unix"].contains(scheme) else {
            throw CommandLineError("unsupported URL scheme '\(scheme)' in '\(text)' (http or https)")
        }
        return url
    }

    /// Percent-encodes the query items the way forms are (`+` and `&` escaped) and appends them.
    private static func url(_ url: URL, appending items: [(String, String)]) throws(CommandLineError) -> URL {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        func encode(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text }
        let added = items.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&")
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw CommandLineError("malformed URL '\(url.absoluteString)'")
        }
        components.percentEncodedQuery = [components.percentEncodedQuery, added]
            .compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: "&")
        guard let result = components.url else { throw CommandLineError("malformed URL '\(url.absoluteString)'") }
        return result
    }

    private static func body(fields: [RequestItem], style: BodyStyle) throws(CommandLineError) -> Body {
        switch style {
        case .json:
            var members: [String] = []
            for field in fields {
                switch field {
                case .stringField(let name, let value):
                    members.append("\(quoted(name)): \(quoted(value))")
                case .jsonField(let name, let json):
                    guard let data = json.data(using: .utf8),
                        (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil
                    else {
                        throw CommandLineError("invalid item '\(name):=\(json)': the value is not valid JSON")
                    }
                    members.append("\(quoted(name)): \(json.trimmingCharacters(in: .whitespacesAndNewlines))")
                default: break
                }
            }
            return .data(Data("{\(members.joined(separator: ", "))}".utf8), contentType: "application/json")
        case .form:
            var pairs: [String] = []
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            for field in fields {
                guard case .stringField(let name, let value) = field else {
                    throw CommandLineError("--form sends text fields only: use field=value (or --multipart for files)")
                }
                let encode = { (text: String) in text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text }
                pairs.append("\(encode(name))=\(encode(value))")
            }
            return .data(Data(pairs.joined(separator: "&").utf8), contentType: "application/x-www-form-urlencoded")
        case .multipart:
            var form = MultipartFormData()
            do {
                for field in fields {
                    switch field {
                    case .stringField(let name, let value):
                        try form.append(value, withName: name)
                    case .jsonField(let name, let json):
                        try form.append(Data(json.utf8), withName: name, mimeType: "application/json")
                    case .fileField(let name, let path, let mimeType):
                        _ = try InputFile.read(path, for: "file field '\(name)@\(path)'")
                        let fileURL = URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
                        try form.append(fileAt: fileURL, withName: name, mimeType: mimeType)
                    default: break
                    }
                }
            } catch let error as CommandLineError {
                throw error
            } catch {
                throw CommandLineError("cannot build the multipart form: \(error)")
            }
            return .multipart(form)
        }
    }

    /// A JSON string literal.
    private static func quoted(_ text: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let data = (try? encoder.encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// The request body as Curlew sends it.
    var requestBody: RequestBody? {
        switch body {
        case .none: return nil
        case .data(let data, _): return .data(data)
        case .file(let url): return .file(url)
        case .multipart(let form): return .multipart(form)
        }
    }

    /// The header fields: the items' (repeated names kept), then the body's `Content-Type` when
    /// no item set one.
    func headerFields() throws(CommandLineError) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in headers {
            guard let fieldName = HTTPField.Name(name) else { throw CommandLineError("invalid header name '\(name)'") }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        if fields[.contentType] == nil, case .data(_, let type?) = body {
            fields[.contentType] = type
        }
        return fields
    }
}
