import Foundation

/// A small `multipart/form-data` parser for echoing uploads (RFC 7578), used on bodies that were
/// kept in memory.
enum MultipartParser {
    /// The parsed parts: plain fields, and file parts keyed by field name.
    struct Parts {
        /// Fields without a filename: name → value (or array of values when repeated).
        var form: [String: Any]
        /// Fields with a filename: name → `{"filename", "contentType", "length", "content", "base64"}`
        /// (or an array of those when repeated). `content` is UTF-8 text, or base64 when `base64`.
        var files: [String: Any]
    }

    /// Parses `body` with the boundary from `contentType`; `nil` when it is not well formed.
    static func parse(body: Data, contentType: String) -> Parts? {
        guard let boundary = boundary(in: contentType), !boundary.isEmpty else { return nil }
        let delimiter = Data("--\(boundary)".utf8)
        let separator = Data("\r\n--\(boundary)".utf8)
        let headerEnd = Data("\r\n\r\n".utf8)
        guard let first = body.range(of: delimiter) else { return nil }
        var cursor = first.upperBound
        var fields: [(String, String)] = []
        var files: [String: [[String: Any]]] = [:]
        while true {
            // After a delimiter: "--" ends the body, otherwise CRLF starts a part.
            let rest = body[cursor...]
            if rest.starts(with: Data("--".utf8)) { break }
            guard rest.starts(with: Data("\r\n".utf8)) else { return nil }
            let partStart = cursor + 2
            guard let next = body.range(of: separator, in: partStart..<body.endIndex) else { return nil }
            let part = body[partStart..<next.lowerBound]
            cursor = next.upperBound
            guard let split = part.range(of: headerEnd) else {
                // A part with no headers at all starts with the blank line.
                if part.starts(with: Data("\r\n".utf8)) { continue }
                return nil
            }
            let headerText = String(decoding: part[part.startIndex..<split.lowerBound], as: UTF8.self)
            let content = Data(part[split.upperBound...])
            var name: String?
            var filename: String?
            var partType = "text/plain"
            for line in headerText.components(separatedBy: "\r\n") {
                guard let colon = line.firstIndex(of: ":") else { continue }
                let field = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                if field == "content-disposition" {
                    name = parameter("name", in: value)
                    filename = parameter("filename", in: value)
                } else if field == "content-type" {
                    partType = value
                }
            }
            guard let name else { continue }
            if let filename {
                let text = String(data: content, encoding: .utf8)
                files[name, default: []].append([
                    "filename": filename,
                    "contentType": partType,
                    "length": content.count,
                    "content": text ?? content.base64EncodedString(),
                    "base64": text == nil,
                ])
            } else {
                fields.append((name, String(decoding: content, as: UTF8.self)))
            }
        }
        let groupedFiles = files.mapValues { values -> Any in values.count == 1 ? values[0] : values }
        return Parts(form: EchoRoutes.groupedPairs(fields), files: groupedFiles)
    }

    /// The `boundary` parameter of a multipart Content-Type.
    private static func boundary(in contentType: String) -> String? {
        parameter("boundary", in: contentType)
    }

    /// The value of parameter `name` in a `value; a=b; c="d"` header, unquoted.
    private static func parameter(_ name: String, in header: String) -> String? {
        for piece in header.split(separator: ";").dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == name else { continue }
            var value = pair[1].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            }
            return value
        }
        return nil
    }
}
