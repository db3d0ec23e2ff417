import Foundation
import Testing

/// README.md's Swift blocks are compiled as part of this target (in
/// `ReadmeSnippets.generated.swift`); these tests keep that file in step with the README and
/// pin down how blocks are cut up.
@Suite("README snippets")
struct ReadmeSnippetTests {
    /// Set by `scripts/readme-snippets.sh`: write the generated file instead of comparing.
    static let regenerateVariable = "CURLEW_REGENERATE_README_SNIPPETS"

    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let generatedFile = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().appendingPathComponent("ReadmeSnippets.generated.swift")

    @Test func theCompiledFileHoldsEveryBlockOfTheReadme() throws {
        let readme = try String(contentsOf: Self.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let expected = ReadmeSnippetExtractor.generate(from: readme)
        if ProcessInfo.processInfo.environment[Self.regenerateVariable] == "1" {
            try Data(expected.utf8).write(to: Self.generatedFile, options: .atomic)
            return
        }
        let current = try? String(contentsOf: Self.generatedFile, encoding: .utf8)
        let currentLines = (current ?? "").split(separator: "\n", omittingEmptySubsequences: false)
        let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let firstDifference = zip(currentLines, expectedLines).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(currentLines.count, expectedLines.count)
        let upToDate = current == expected
        #expect(upToDate, "README changed: run `scripts/readme-snippets.sh` (the generated file differs from line \(firstDifference + 1))")
        #expect(ReadmeSnippetExtractor.blocks(in: readme).count > 30, "the README's Swift blocks were found")
    }

    @Test func onlySwiftBlocksAreTakenWithTheirHeadings() {
        let markdown = """
            # Title
            ```swift
            let a = 1
            ```
            ## Section
            ```sh
            echo no
            ```
            ```
            plain
            ```
            ```swift package
            .package(path: "../curlew"),
            ```
            ```swift
            // # not a heading
            let b = 2
            ```
            ```swift openapi
            let c = generatedClient()
            ```
            """
        let blocks = ReadmeSnippetExtractor.blocks(in: markdown)
        #expect(blocks.map(\.lines) == [["let a = 1"], [".package(path: \"../curlew\"),"], ["// # not a heading", "let b = 2"], ["let c = generatedClient()"]])
        #expect(blocks.map(\.heading) == ["# Title", "## Section", "## Section", "## Section"])
        #expect(blocks.map(\.isPackageManifest) == [false, true, false, false])
        #expect(blocks.map(\.usesGeneratedClient) == [false, false, false, true])
        let generated = ReadmeSnippetExtractor.generate(from: markdown)
        #expect(!generated.contains(".package(path:"), "a Package.swift fragment is not compiled")
        #expect(!generated.contains("generatedClient()"), "code of a generated client is not compiled")
        #expect(generated.contains("enum ReadmeBlock01 {") && generated.contains("enum ReadmeBlock03 {"))
    }

    @Test func typesImportsAndStatementsGoApart() {
        let parts = ReadmeSnippetExtractor.split([
            "import Curlew",
            "#if canImport(FoundationNetworking)",
            "import FoundationNetworking",
            "#endif",
            "",
            "struct Problem: Decodable, Error { let code: String }",
            "let x = try await f()",
            "final class Store: CookieStorage {",
            "    func f() { if true { \"}\" } }   // }",
            "}",
            "for try await y in s {",
            "    struct Inner {}",
            "}",
            "enum Router: EndpointConvertible {",
            "    case a",
            "}",
        ])
        #expect(parts.imports == ["import Curlew", "#if canImport(FoundationNetworking)\nimport FoundationNetworking\n#endif"])
        #expect(parts.declarations == [
            "struct Problem: Decodable, Error { let code: String }",
            "final class Store: CookieStorage {", "    func f() { if true { \"}\" } }   // }", "}",
            "enum Router: EndpointConvertible {", "    case a", "}",
        ])
        #expect(parts.statements == ["let x = try await f()", "for try await y in s {", "    struct Inner {}", "}"])
    }

    @Test func eachBlockIsWrappedInItsOwnNamespace() {
        let generated = ReadmeSnippetExtractor.generate(from: """
            ## One
            ```swift
            import Synchronization // Mutex
            import Curlew
            struct User {}
            let user = User()
            ```
            ## Two
            ```swift
            struct User {}
            ```
            """)
        #expect(generated.contains("""
            // ## One, block 1
            enum ReadmeBlock01 {
                struct User {}

                static func run() async throws {
                    let user = User()
                    _ = (user)
                }
            }
            """))
        #expect(generated.contains("enum ReadmeBlock02 {\n    struct User {}\n"))
        let importLines = generated.split(separator: "\n").filter { $0.hasPrefix("import ") }
        #expect(importLines.contains("import Synchronization") && importLines.count == Set(importLines).count)
    }
}
