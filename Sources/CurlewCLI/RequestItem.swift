import Foundation

/// One `ITEM` of the command line, in httpie's syntax: what it adds to the request.
///
/// The separator is the leftmost one in the item, and at that position the longest:
/// `Header:value`, `Header;` (an empty value), `name==value` (query), `field=value` (a string
/// field), `field:=json` (a raw JSON field), `field=@file` (a string field read from a file),
/// `field:=@file` (a JSON field read from a file), `field@file` (a file in a multipart form),
/// and `@file` alone (the whole body from a file). A backslash makes the next character
/// literal, so `a\=b=c` is the field `a=b` with the value `c`.
enum RequestItem: Equatable {
    case header(name: String, value: String)
    case query(name: String, value: String)
    case stringField(name: String, value: String)
    case jsonField(name: String, json: String)
    case fileField(name: String, path: String, mimeType: String?)
    case bodyFile(path: String)

    /// The separators, longest first where one begins another.
    private static let separators = [":=@", "=@", ":=", "==", "=", "@", ":", ";"]

    /// Parses `text`, or throws a ``CommandLineError`` naming the item and what is wrong.
    static func parse(_ text: String) throws(CommandLineError) -> RequestItem {
        if text.hasPrefix("@") {
            let path = String(text.dropFirst())
            guard !path.isEmpty else { throw CommandLineError("invalid item '\(text)': '@' needs a file name") }
            return .bodyFile(path: path)
        }
        let characters = Array(text)
        var key = ""
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character == "\\", index + 1 < characters.count {
                key.append(characters[index + 1])
                index += 2
                continue
            }
            let rest = String(characters[index...])
            if let separator = separators.first(where: { rest.hasPrefix($0) }) {
                let value = String(rest.dropFirst(separator.count))
                return try make(key: key, separator: separator, value: value, item: text)
            }
            key.append(character)
            index += 1
        }
        throw CommandLineError(
            "invalid item '\(text)': expected Header:value, name==value, field=value, field:=json or field@file")
    }

    private static func make(
        key: String, separator: String, value: String, item: String
    ) throws(CommandLineError) -> RequestItem {
        guard !key.isEmpty else { throw CommandLineError("invalid item '\(item)': the name before '\(separator)' is empty") }
        switch separator {
        case ":":
            guard isToken(key) else { throw CommandLineError("invalid item '\(item)': '\(key)' is not a valid header name") }
            let trimmed = value.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else {
                throw CommandLineError("invalid item '\(item)': empty header value (write '\(key);' to send an empty one)")
            }
            guard !trimmed.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
                throw CommandLineError("invalid item '\(item)': a header value cannot hold CR, LF or NUL")
            }
            return .header(name: key, value: trimmed)
        case ";":
            guard isToken(key) else { throw CommandLineError("invalid item '\(item)': '\(key)' is not a valid header name") }
            guard value.isEmpty else {
                throw CommandLineError("invalid item '\(item)': 'Header;' takes no value (use 'Header:value')")
            }
            return .header(name: key, value: "")
        case "==":
            return .query(name: key, value: value)
        case "=":
            return .stringField(name: key, value: value)
        case ":=":
            return .jsonField(name: key, json: value)
        case "=@":
            return .stringField(name: key, value: try readText(value, item: item))
        case ":=@":
            return .jsonField(name: key, json: try readText(value, item: item))
        default:  // "@"
            var path = value
            var mimeType: String?
            if let range = value.range(of: ";type=", options: .backwards) {
                path = String(value[..<range.lowerBound])
                mimeType = String(value[range.upperBound...])
            }
            guard !path.isEmpty else { throw CommandLineError("invalid item '\(item)': '@' needs a file name") }
            return .fileField(name: key, path: path, mimeType: mimeType)
        }
    }

    /// Whether `name` is an RFC 9110 token (a valid field name).
    private static func isToken(_ name: String) -> Bool {
        let allowed = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        return !name.isEmpty && name.allSatisfy { allowed.contains($0) }
    }

    private static func readText(_ path: String, item: String) throws(CommandLineError) -> String {
        let data = try InputFile.read(path, for: "item '\(item)'")
        guard let text = String(data: data, encoding: .utf8) else {
            throw CommandLineError("invalid item '\(item)': \(path) is not UTF-8 text")
        }
        return text
    }
}

/// Reading the files that items and options name, with errors that say which and why.
enum InputFile {
    /// The contents of `path`, or a one-line error naming `purpose` and the file.
    static func read(_ path: String, for purpose: String) throws(CommandLineError) -> Data {
        let expanded = (path as NSString).expandingTildeInPath
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: expanded, isDirectory: &isDirectory) else {
            throw CommandLineError("\(purpose): no such file: \(path)")
        }
        guard !isDirectory.boolValue else { throw CommandLineError("\(purpose): \(path) is a directory") }
        guard let data = FileManager.default.contents(atPath: expanded) else {
            throw CommandLineError("\(purpose): cannot read \(path)")
        }
        return data
    }
}
