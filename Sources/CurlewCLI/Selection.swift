import Curlew
import CurlewXML
import Foundation

/// `--jq-path` and `--xpath`: a part of the response body.
enum Selection {
    /// The JSON value at `path` (`a.b[0].c`, `[2]`, `"a.b"` quoted keys not supported) as JSON text.
    static func json(_ path: String, in data: Data) throws(CommandLineError) -> Data {
        let root: JSON
        do {
            root = try JSON(parsing: data)
        } catch {
            throw CommandLineError("--jq-path: the response body is not JSON")
        }
        var value = root
        for step in try steps(path) {
            switch step {
            case .key(let key):
                guard let object = value.object else { throw CommandLineError("--jq-path '\(path)': '\(key)' is not in an object") }
                guard let next = object[key] else { throw CommandLineError("--jq-path '\(path)': no key '\(key)'") }
                value = next
            case .index(let index):
                guard let array = value.array else { throw CommandLineError("--jq-path '\(path)': [\(index)] is not in an array") }
                let position = index < 0 ? array.count + index : index
                guard array.indices.contains(position) else {
                    throw CommandLineError("--jq-path '\(path)': index \(index) is outside the array of \(array.count)")
                }
                value = array[position]
            }
        }
        do {
            return try value.data() + Data("\n".utf8)
        } catch {
            throw CommandLineError("--jq-path '\(path)': cannot write the selected value")
        }
    }

    private enum Step {
        case key(String)
        case index(Int)
    }

    private static func steps(_ path: String) throws(CommandLineError) -> [Step] {
        var steps: [Step] = []
        var text = Substring(path.hasPrefix(".") ? String(path.dropFirst()) : path)
        while !text.isEmpty {
            if text.hasPrefix("[") {
                guard let close = text.firstIndex(of: "]"), let index = Int(text[text.index(after: text.startIndex)..<close]) else {
                    throw CommandLineError("--jq-path '\(path)': expected [number]")
                }
                steps.append(.index(index))
                text = text[text.index(after: close)...]
                if text.hasPrefix(".") { text = text.dropFirst() }
                continue
            }
            let end = text.firstIndex(where: { $0 == "." || $0 == "[" }) ?? text.endIndex
            let key = String(text[..<end])
            guard !key.isEmpty else { throw CommandLineError("--jq-path '\(path)': empty key") }
            steps.append(.key(key))
            text = text[end...]
            if text.hasPrefix(".") { text = text.dropFirst() }
        }
        return steps
    }

    /// The nodes `expression` matches, one per line (elements as XML), or its value when it is
    /// not a node set (`count(//item)`, `string(//title)`).
    static func xml(_ expression: String, in data: Data) throws(CommandLineError) -> Data {
        let tree: XMLTree
        do {
            tree = try XMLTree(data: data)
        } catch {
            throw CommandLineError("--xpath: the response body is not XML: \(error)")
        }
        let nodes: [XMLTreeNode]
        let value: String
        do {
            nodes = try tree.nodes(matching: expression)
            // Not a node set (count(), string(), a number): its value.
            value = nodes.isEmpty ? try tree.string(for: expression) : ""
        } catch {
            throw CommandLineError("--xpath '\(expression)': \(error)")
        }
        if nodes.isEmpty {
            guard !value.isEmpty else { throw CommandLineError("--xpath '\(expression)': matches nothing") }
            return Data((value + "\n").utf8)
        }
        let lines = nodes.map { node in node.kind == .element ? node.xmlString() : node.text }
        return Data(lines.map { $0 + "\n" }.joined().utf8)
    }
}
