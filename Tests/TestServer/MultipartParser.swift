import Foundation

/// A strict `multipart/form-data` parser for echoing uploads (RFC 7578, RFC 2046), used on
/// bodies that were kept in memory. It reports what it cannot parse instead of guessing: a part
/// without headers or without a `name`, a disposition that is not `form-data`, a parameter
/// value that is not a quoted string or has a stray quote, a repeated parameter. A part without
/// a Content-Type has none (`null`), rather than an invented `text/plain`.
enum MultipartParser {
    /// Why a body was rejected.
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The parsed parts.
    struct Parts {
        /// Fields without a filename, in order, duplicates kept.
        var fields: [(String, String)]
        /// The same fields: name → value (or array of values when repeated).
        var form: [String: Any]
        /// Fields with a filename: name → `{"filename", "contentType", "length", "content", "base64"}`
        /// (or an array of those when repeated). `content` is UTF-8 text, or base64 when `base64`;
        /// `contentType` is `null` when the part had no Content-Type.
        var files: [String: Any]
    }

    /// Parses `body` with the boundary from `contentType`.
    static func parse(body: Data, contentType: String) throws(Failure) -> Parts {
        let typeParameters = try parameters(of: contentType, requireQuotes: false)
        guard let boundary = typeParameters["boundary"], !boundary.isEmpty else {
            throw Failure("no boundary in '\(contentType)'")
        }
        let delimiter = Data("--\(boundary)".utf8)
        let separator = Data("\r\n--\(boundary)".utf8)
        let headerEnd = Data("\r\n\r\n".utf8)
        guard let first = body.range(of: delimiter) else { throw Failure("no delimiter --\(boundary)") }
        var cursor = first.upperBound
        var fields: [(String, String)] = []
        var files: [String: [[String: Any]]] = [:]
        var index = 0
        while true {
            // After a delimiter: "--" ends the body, otherwise CRLF starts a part.
            let rest = body[cursor...]
            if rest.starts(with: Data("--".utf8)) { break }
            guard rest.starts(with: Data("\r\n".utf8)) else { throw Failure("no CRLF after delimiter \(index)") }
            let partStart = cursor + 2
            guard let next = body.range(of: separator, in: partStart..<body.endIndex) else {
                throw Failure("part \(index) has no closing delimiter")
            }
            let part = body[partStart..<next.lowerBound]
            cursor = next.upperBound
            guard let split = part.range(of: headerEnd) else {
                throw Failure("part \(index) has no header section (every form-data part needs Content-Disposition)")
            }
            let headerText = String(decoding: part[part.startIndex..<split.lowerBound], as: UTF8.self)
            let content = Data(part[split.upperBound...])
            var disposition: [String: String]?
            var partType: String?
            for line in headerText.components(separatedBy: "\r\n") {
                guard let colon = line.firstIndex(of: ":") else { throw Failure("part \(index): bad header line '\(line)'") }
                let field = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                switch field {
                case "content-disposition":
                    guard disposition == nil else { throw Failure("part \(index): two Content-Disposition lines") }
                    guard value.split(separator: ";", maxSplits: 1).first?.trimmingCharacters(in: .whitespaces)
                        .lowercased() == "form-data"
                    else { throw Failure("part \(index): disposition '\(value)' is not form-data") }
                    disposition = try parameters(of: value, requireQuotes: true)
                case "content-type":
                    guard partType == nil else { throw Failure("part \(index): two Content-Type lines") }
                    partType = value
                default:
                    break
                }
            }
            guard let name = disposition?["name"] else { throw Failure("part \(index) has no name") }
            if let filename = disposition?["filename"] {
                let text = String(data: content, encoding: .utf8)
                files[name, default: []].append([
                    "filename": filename,
                    "contentType": partType.map { $0 as Any } ?? NSNull(),
                    "length": content.count,
                    "content": text ?? content.base64EncodedString(),
                    "base64": text == nil,
                ])
            } else {
                fields.append((name, String(decoding: content, as: UTF8.self)))
            }
            index += 1
        }
        let groupedFiles = files.mapValues { values -> Any in values.count == 1 ? values[0] : values }
        return Parts(fields: fields, form: EchoRoutes.groupedPairs(fields), files: groupedFiles)
    }

    /// The parameters after the first `;` of a header value such as `form-data; name="a"`, names
    /// lowercased. Values are quoted strings with `\"` and `\\` escapes (or, without
    /// `requireQuotes`, also tokens). Anything else, or a repeated name, is a failure.
    static func parameters(of header: String, requireQuotes: Bool) throws(Failure) -> [String: String] {
        var result: [String: String] = [:]
        let characters = Array(header)
        guard var position = characters.firstIndex(of: ";") else { return result }
        func skipSpaces() {
            while position < characters.count, characters[position] == " " || characters[position] == "\t" {
                position += 1
            }
        }
        while position < characters.count {
            guard characters[position] == ";" else { throw Failure("expected ';' at \(position) in '\(header)'") }
            position += 1
            skipSpaces()
            let nameStart = position
            while position < characters.count, characters[position] != "=", characters[position] != ";" {
                position += 1
            }
            let name = String(characters[nameStart..<position]).trimmingCharacters(in: .whitespaces).lowercased()
            guard !name.isEmpty, EchoRoutes.isToken(name), position < characters.count, characters[position] == "="
            else { throw Failure("bad parameter at \(nameStart) in '\(header)'") }
            position += 1
            var value = ""
            if position < characters.count, characters[position] == "\"" {
                position += 1
                var closed = false
                while position < characters.count {
                    let character = characters[position]
                    position += 1
                    if character == "\\" {
                        guard position < characters.count else { break }
                        value.append(characters[position])
                        position += 1
                    } else if character == "\"" {
                        closed = true
                        break
                    } else {
                        value.append(character)
                    }
                }
                guard closed else { throw Failure("unterminated quoted value of '\(name)' in '\(header)'") }
            } else {
                guard !requireQuotes else { throw Failure("the value of '\(name)' is not quoted in '\(header)'") }
                let valueStart = position
                while position < characters.count, characters[position] != ";", characters[position] != " " {
                    position += 1
                }
                value = String(characters[valueStart..<position])
                guard !value.isEmpty, EchoRoutes.isToken(value) || name == "boundary" else {
                    throw Failure("the value of '\(name)' is not a token in '\(header)'")
                }
            }
            skipSpaces()
            guard result.updateValue(value, forKey: name) == nil else {
                throw Failure("parameter '\(name)' appears twice in '\(header)'")
            }
        }
        return result
    }
}
