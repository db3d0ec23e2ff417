import Curlew
import CurlewXML
import Foundation
import HTTPTypes

/// Writes the parts of an exchange that `--print` asks for, formatted and coloured as `--pretty`
/// says: `H` request head, `B` request body, `h` response head, `b` response body.
struct ResponsePrinter {
    /// What `--print` selected.
    struct Parts {
        var requestHead = false
        var requestBody = false
        var responseHead = false
        var responseBody = false

        /// Parses `--print` letters; throws on any other letter or an empty selection.
        init(_ letters: String) throws(CommandLineError) {
            guard !letters.isEmpty else { throw CommandLineError("--print needs at least one of H, B, h, b") }
            for letter in letters {
                switch letter {
                case "H": requestHead = true
                case "B": requestBody = true
                case "h": responseHead = true
                case "b": responseBody = true
                default: throw CommandLineError("--print: unknown part '\(letter)' (use H, B, h, b)")
                }
            }
        }
    }

    var parts: Parts
    var colours: Bool
    var formats: Bool
    /// Binary bodies are replaced by a note when written to a terminal.
    var toTerminal: Bool
    /// Where the response body goes (standard output unless `--output`).
    var bodyDescriptor: Int32 = STDOUT_FILENO

    private var palette: Palette? { colours ? Palette() : nil }

    /// Names whose values never print (the library's redaction rule for printed requests).
    static let secretFields: Set<String> = ["authorization", "proxy-authorization", "cookie"]

    func requestHead(method: String, url: URL, fields: [(String, String)], version: String) -> String {
        var target = url.path.isEmpty ? "/" : url.path
        if let query = url.query { target += "?" + query }
        var lines = [paint(method, palette?.method) + " " + target + " " + paint(version, palette?.protocolName)]
        var host = url.host ?? ""
        if host.contains(":") { host = "[\(host)]" }
        if let port = url.port { host += ":\(port)" }
        var all = fields
        if !all.contains(where: { $0.0.lowercased() == "host" }) { all.insert(("Host", host), at: 0) }
        for (name, value) in all {
            let shown = Self.secretFields.contains(name.lowercased()) ? Self.redacted(value) : value
            lines.append(paint(name, palette?.headerName) + ": " + shown)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A request head as libcurl sent it (request line, then fields; secrets already `***`),
    /// coloured as ``requestHead(method:url:fields:version:)`` colours a built one.
    func sentRequestHead(_ lines: [String]) -> String {
        var painted: [String] = []
        for (index, line) in lines.enumerated() {
            if index == 0 {
                let words = line.split(separator: " ", maxSplits: 1).map(String.init)
                guard words.count == 2, let space = words[1].lastIndex(of: " ") else {
                    painted.append(line)
                    continue
                }
                let target = words[1][..<space], version = words[1][words[1].index(after: space)...]
                painted.append(paint(words[0], palette?.method) + " " + target + " " + paint(String(version), palette?.protocolName))
            } else if let colon = line.firstIndex(of: ":") {
                painted.append(paint(String(line[..<colon]), palette?.headerName) + line[colon...])
            } else {
                painted.append(line)
            }
        }
        return painted.joined(separator: "\n") + "\n"
    }

    /// `Basic ***`: the scheme stays, the credentials do not.
    static func redacted(_ value: String) -> String {
        if let space = value.firstIndex(of: " ") { return value[..<space] + " ***" }
        return "***"
    }

    func responseHead(_ head: HTTPResponse, version: HTTPVersion) -> String {
        let code = head.status.code
        let status = paint("\(code) \(head.status.reasonPhrase)", palette?.status(code))
        var lines = [paint(Self.protocolName(version), palette?.protocolName) + " " + status]
        for field in head.headerFields {
            lines.append(paint(field.name.rawName, palette?.headerName) + ": " + field.value)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func protocolName(_ version: HTTPVersion) -> String {
        switch version {
        case .http1_0: return "HTTP/1.0"
        case .http2: return "HTTP/2"
        case .http3: return "HTTP/3"
        default: return "HTTP/1.1"
        }
    }

    /// The body as it should be written: formatted JSON or XML, or a note instead of binary
    /// bytes on a terminal, or the bytes unchanged.
    func body(_ data: Data, contentType: String?) -> Data {
        let type = contentType?.lowercased() ?? ""
        if formats || colours {
            if type.contains("json") || (type.isEmpty && data.first.map({ $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "[") }) ?? false) {
                let formatter = JSONFormatter(indentsAndBreaks: formats, palette: palette)
                if let text = formatter.format(data) { return Data((text + "\n").utf8) }
            }
            if formats, type.contains("xml"), let tree = try? XMLTree(data: data) {
                return Data((tree.xmlString(formatted: true).trimmingCharacters(in: .newlines) + "\n").utf8)
            }
        }
        if toTerminal, Self.looksBinary(data) {
            return Data("+-----------------------------------------+\n| NOTE: binary data not shown in terminal |\n+-----------------------------------------+\n".utf8)
        }
        return data
    }

    /// A NUL byte or invalid UTF-8 in the first 4 KiB.
    static func looksBinary(_ data: Data) -> Bool {
        let prefix = data.prefix(4096)
        if prefix.contains(0) { return true }
        if String(data: prefix, encoding: .utf8) != nil { return false }
        // A multi-byte character cut at the end of the prefix is still text.
        return String(data: prefix.dropLast(3), encoding: .utf8) == nil
    }

    func paint(_ text: String, _ colour: String?) -> String {
        guard let colour else { return text }
        return colour + text + Palette.reset
    }
}
