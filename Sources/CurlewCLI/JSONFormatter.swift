import Foundation

/// Re-indents JSON text (4 spaces, keys in the server's order, numbers as written) and, when
/// asked, colours it with ANSI escapes. Text that is not JSON is returned as it was (`nil`).
struct JSONFormatter {
    var indentsAndBreaks: Bool
    var palette: Palette?

    /// `text` formatted, or nil when it is not one valid JSON value.
    func format(_ data: Data) -> String? {
        guard (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil,
            let text = String(data: data, encoding: .utf8)
        else { return nil }
        return format(validText: text)
    }

    /// Formats text already known to be valid JSON.
    private func format(validText text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        var output = ""
        var depth = 0
        var index = 0
        // Whether the string about to be written is an object key (followed by `:`).
        var containers: [Character] = []
        var expectingKey = false
        func newline() {
            guard indentsAndBreaks else { return }
            output += "\n" + String(repeating: "    ", count: depth)
        }
        while index < scalars.count {
            let scalar = scalars[index]
            switch scalar {
            case " ", "\t", "\n", "\r":
                index += 1
            case "{", "[":
                let closing: Unicode.Scalar = scalar == "{" ? "}" : "]"
                // An empty container stays on one line.
                var next = index + 1
                while next < scalars.count, [" ", "\t", "\n", "\r"].contains(scalars[next]) { next += 1 }
                if next < scalars.count, scalars[next] == closing {
                    output += String(scalar) + String(closing)
                    index = next + 1
                    continue
                }
                output += String(scalar)
                containers.append(Character(scalar))
                expectingKey = scalar == "{"
                depth += 1
                newline()
                index += 1
            case "}", "]":
                depth -= 1
                containers.removeLast()
                newline()
                output += String(scalar)
                index += 1
            case ",":
                output += ","
                expectingKey = containers.last == "{"
                newline()
                index += 1
            case ":":
                output += indentsAndBreaks ? ": " : ":"
                index += 1
            case "\"":
                var end = index + 1
                while end < scalars.count, scalars[end] != "\"" {
                    end += scalars[end] == "\\" ? 2 : 1
                }
                let literal = String(String.UnicodeScalarView(scalars[index...min(end, scalars.count - 1)]))
                output += paint(literal, expectingKey ? palette?.key : palette?.string)
                expectingKey = false
                index = end + 1
            default:
                var end = index
                while end < scalars.count, !",:]} \t\n\r".unicodeScalars.contains(scalars[end]) { end += 1 }
                let literal = String(String.UnicodeScalarView(scalars[index..<end]))
                let isNumber = literal.first.map { $0 == "-" || $0.isNumber } ?? false
                output += paint(literal, isNumber ? palette?.number : palette?.literal)
                index = end
            }
        }
        return output
    }

    private func paint(_ text: String, _ colour: String?) -> String {
        guard let colour else { return text }
        return colour + text + Palette.reset
    }
}

/// The ANSI colours of the output.
struct Palette {
    static let reset = "\u{1B}[0m"
    var key = "\u{1B}[34;1m"        // bold blue
    var string = "\u{1B}[33m"       // yellow
    var number = "\u{1B}[36m"       // cyan
    var literal = "\u{1B}[35m"      // magenta: true, false, null
    var headerName = "\u{1B}[36m"   // cyan
    var protocolName = "\u{1B}[34m" // blue
    var method = "\u{1B}[32;1m"     // bold green
    var warning = "\u{1B}[31;1m"    // bold red

    /// The colour of a status code: green 2xx, yellow 3xx, red 4xx and 5xx.
    func status(_ code: Int) -> String {
        switch code {
        case 200..<300: return "\u{1B}[32;1m"
        case 300..<400: return "\u{1B}[33;1m"
        default: return "\u{1B}[31;1m"
        }
    }
}
