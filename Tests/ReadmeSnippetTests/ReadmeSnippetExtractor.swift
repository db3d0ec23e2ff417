import Foundation

/// Turns the ```swift blocks of README.md into one Swift file that the test target compiles.
///
/// Each block becomes `enum ReadmeBlockNN { <its type declarations>; static func run() async
/// throws { <its statements> } }`, so names never collide between blocks; its imports go to
/// the top of the file. A block whose fence says ```swift package (a Package.swift fragment)
/// is left out. The blocks are compiled, never run; `Prelude.swift` declares the placeholders
/// (`url`, `User`, …) a reader would have.
enum ReadmeSnippetExtractor {
    /// One fenced Swift block of the README.
    struct Block: Equatable {
        /// The last heading above the block, as written (`### Errors`).
        var heading: String
        /// The fence's info string after the backticks (`swift`, `swift package`).
        var info: String
        var lines: [String]

        /// A Package.swift fragment: shown, not compiled.
        var isPackageManifest: Bool { info.split(separator: " ").contains("package") }
        /// Code that calls a client generated from the reader's own openapi.yaml: shown, not
        /// compiled here (the same calls are compiled against a real generated client in
        /// Tests/CurlewOpenAPITests).
        var usesGeneratedClient: Bool { info.split(separator: " ").contains("openapi") }
    }

    /// A block split into what goes where in the generated file.
    struct Parts: Equatable {
        var imports: [String] = []
        var declarations: [String] = []
        var statements: [String] = []
    }

    /// The ```swift blocks of `markdown`, in order, with the heading each one is under.
    static func blocks(in markdown: String) -> [Block] {
        var blocks: [Block] = []
        var heading = ""
        var open: Block?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if var block = open {
                if line.trimmingCharacters(in: .whitespaces) == "```" {
                    blocks.append(block)
                    open = nil
                } else {
                    block.lines.append(line)
                    open = block
                }
            } else if line.hasPrefix("```") {
                let info = String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces)
                // Blocks of other languages are passed over like Swift ones, just not kept.
                open = Block(heading: heading, info: info, lines: [])
                if info.split(separator: " ").first != "swift" { open?.info = "\u{0}" + info }
            } else if line.hasPrefix("#") {
                heading = line
            }
        }
        return blocks.filter { !$0.info.hasPrefix("\u{0}") }
    }

    /// Sorts a block's lines into imports (with an `#if canImport` around them), type
    /// declarations (from a line starting with `struct`, `enum`, `class`, `actor`, `protocol`
    /// and the like to its closing brace) and statements (everything else).
    static func split(_ lines: [String]) -> Parts {
        var parts = Parts()
        var index = 0
        while index < lines.count {
            let line = lines[index]
            if isImport(line) {
                parts.imports.append(line)
                index += 1
            } else if line.hasPrefix("#if canImport"), let end = lines[index...].firstIndex(of: "#endif"),
                lines[(index + 1)..<end].allSatisfy(isImport)
            {
                parts.imports.append(lines[index...end].joined(separator: "\n"))
                index = end + 1
            } else if startsDeclaration(line) {
                var depth = 0
                var opened = false
                repeat {
                    let delta = braceDelta(lines[index])
                    if delta.opened { opened = true }
                    depth += delta.change
                    parts.declarations.append(lines[index])
                    index += 1
                } while index < lines.count && (!opened || depth > 0)
            } else {
                parts.statements.append(line)
                index += 1
            }
        }
        while parts.statements.last?.trimmingCharacters(in: .whitespaces).isEmpty == true {
            parts.statements.removeLast()
        }
        while parts.statements.first?.trimmingCharacters(in: .whitespaces).isEmpty == true {
            parts.statements.removeFirst()
        }
        return parts
    }

    /// The generated file for `markdown`.
    static func generate(from markdown: String) -> String {
        let blocks = blocks(in: markdown)
        var imports = ["import Curlew", "import CurlewXML", "import Foundation", "import HTTPTypes", "import Logging"]
        var bodies: [String] = []
        for (number, block) in blocks.enumerated() {
            let name = "ReadmeBlock" + (number + 1 < 10 ? "0" : "") + String(number + 1)
            let title = "// \(block.heading.isEmpty ? "(top)" : block.heading), block \(number + 1)"
            if block.isPackageManifest {
                bodies.append("\(title): a Package.swift fragment, not compiled.\n")
                continue
            }
            if block.usesGeneratedClient {
                bodies.append("\(title): calls a generated OpenAPI client, not compiled here.\n")
                continue
            }
            let parts = split(block.lines)
            for unit in parts.imports {
                // Without comments, so that one module is imported once.
                let line = unit.split(separator: "\n").map { $0.split(separator: "//").first.map(String.init)?
                    .trimmingCharacters(in: .whitespaces) ?? "" }.joined(separator: "\n")
                if !imports.contains(line) { imports.append(line) }
            }
            var text = "\(title)\nenum \(name) {\n"
            for line in parts.declarations { text += indent(line, 4) }
            if !parts.declarations.isEmpty { text += "\n" }
            text += "    static func run() async throws {\n"
            for line in parts.statements { text += indent(line, 8) }
            let names = declaredNames(parts.statements)
            // What a reader's program would go on to use: no "never used" warnings.
            if !names.isEmpty { text += indent("_ = (" + names.joined(separator: ", ") + ")", 8) }
            text += "    }\n}\n"
            bodies.append(text)
        }
        let header = """
            // Generated from the ```swift blocks of README.md by ReadmeSnippetTests: do not edit.
            // Regenerate with `scripts/readme-snippets.sh`. Compiled, never run; placeholders are in Prelude.swift.
            // swift-format-ignore-file


            """
        let plain = imports.filter { !$0.hasPrefix("#") }.sorted()
        let conditional = imports.filter { $0.hasPrefix("#") }.sorted()
        return header + (plain + conditional).joined(separator: "\n") + "\n\n" + bodies.joined(separator: "\n")
    }

    /// The names a block's statements declare at their outermost level (`let user = …`).
    static func declaredNames(_ statements: [String]) -> [String] {
        statements.compactMap { line in
            guard line.hasPrefix("let ") || line.hasPrefix("var ") else { return nil }
            let name = line.dropFirst(4).prefix { $0.isLetter || $0.isNumber || $0 == "_" }
            return name.isEmpty ? nil : String(name)
        }
    }

    private static func indent(_ line: String, _ width: Int) -> String {
        line.isEmpty ? "\n" : String(repeating: " ", count: width) + line + "\n"
    }

    private static func isImport(_ line: String) -> Bool {
        line.hasPrefix("import ") || line.hasPrefix("@preconcurrency import ")
    }

    private static let declarationKeywords: Set<Substring> = ["struct", "enum", "class", "actor", "protocol", "extension"]
    private static let modifiers: Set<Substring> = [
        "public", "internal", "fileprivate", "private", "final", "indirect", "nonisolated",
    ]

    /// A type declaration at the block's outermost level (column 0).
    static func startsDeclaration(_ line: String) -> Bool {
        guard let first = line.first, !first.isWhitespace else { return false }
        for word in line.split(separator: " ") {
            if declarationKeywords.contains(word) { return true }
            if modifiers.contains(word) || word.hasPrefix("@") { continue }
            return false
        }
        return false
    }

    /// How a line changes the brace depth, outside string literals and `//` comments.
    static func braceDelta(_ line: String) -> (change: Int, opened: Bool) {
        var change = 0
        var opened = false
        var inString = false
        var previous: Character = " "
        for character in line {
            if inString {
                if character == "\"" && previous != "\\" { inString = false }
            } else if character == "\"" {
                inString = true
            } else if character == "/" && previous == "/" {
                break
            } else if character == "{" {
                change += 1
                opened = true
            } else if character == "}" {
                change -= 1
            }
            previous = character
        }
        return (change, opened)
    }
}
