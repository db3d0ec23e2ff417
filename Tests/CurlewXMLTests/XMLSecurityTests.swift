import CurlewXML
import Foundation
import Testing

/// Error kinds and budgets, in the parallel phase, with no bound on time: the one-second
/// limits (and the memory of the billion laughs) are in ``XMLSecurityTimingTests``, which run
/// one at a time.
@Suite("XML security")
struct XMLSecurityTests {
    /// A file whose content must never appear in a parsed document.
    /// Also holds an external DTD that points at it; ``remove()`` deletes both.
    struct SecretFile {
        let url: URL
        let dtd: URL
        let secret: String

        init() throws {
            secret = "SECRET-\(UUID().uuidString)"
            let name = "curlew-xxe-\(UUID().uuidString)"
            url = FileManager.default.temporaryDirectory.appendingPathComponent("\(name).txt")
            dtd = FileManager.default.temporaryDirectory.appendingPathComponent("\(name).dtd")
            try Data(secret.utf8).write(to: url)
            try Data("<!ENTITY leak SYSTEM \"file://\(url.path)\">".utf8).write(to: dtd)
        }

        func remove() {
            try? FileManager.default.removeItem(at: url)
            try? FileManager.default.removeItem(at: dtd)
        }
    }

    /// Everything a caller could read from a document.
    static func everything(in document: XMLTree) throws -> String {
        let attributes = try document.nodes(matching: "//@*").map(\.text).joined(separator: " ")
        return document.xmlString() + document.root.text + attributes
    }

    static func xxePayloads(_ secret: SecretFile) throws -> [String] {
        let path = secret.url.path
        let dtd = secret.dtd
        return [
            "<!DOCTYPE r [<!ENTITY xxe SYSTEM \"file://\(path)\">]><r>&xxe;</r>",
            "<!DOCTYPE r [<!ENTITY xxe SYSTEM \"\(path)\">]><r>&xxe;</r>",
            "<!DOCTYPE r [<!ENTITY xxe SYSTEM \"file://\(path)\">]><r a=\"&xxe;\"/>",
            "<!DOCTYPE r [<!ENTITY % p SYSTEM \"file://\(dtd.path)\"> %p;]><r>&leak;</r>",
            "<!DOCTYPE r SYSTEM \"file://\(dtd.path)\"><r>&leak;</r>",
            "<!DOCTYPE r [<!ENTITY xxe SYSTEM \"http://127.0.0.1:9/x\">]><r>&xxe;</r>",
            "<r xmlns:xi=\"http://www.w3.org/2001/XInclude\"><xi:include href=\"file://\(path)\" parse=\"text\"/></r>",
        ]
    }

    @Test func externalEntitiesNeverReadLocalFiles() throws {
        let secret = try SecretFile()
        defer { secret.remove() }
        for payload in try Self.xxePayloads(secret) {
            do {
                let document = try XMLTree(string: payload)
                #expect(!(try Self.everything(in: document)).contains(secret.secret), "leaked by \(payload)")
            } catch let error as XMLParseError {
                #expect(!error.message.contains(secret.secret))
            }
        }
    }

    @Test func externalEntitiesNeverReadLocalFilesInStreams() async throws {
        let secret = try SecretFile()
        defer { secret.remove() }
        for payload in try Self.xxePayloads(secret) {
            let result = await collect(ChunkedBytes(payload, sizes: [7]).xmlElements(named: "r"))
            let text = result.elements.map { $0.xmlString() + $0.text }.joined()
            #expect(!text.contains(secret.secret), "leaked by \(payload)")
            if payload.contains("<!ENTITY") {
                #expect(result.error != nil, "accepted an entity declaration: \(payload)")
            }
        }
    }

    /// What the README promises: an external entity is never loaded; in a document it reads as
    /// empty text (no error), and the element stream refuses the declaration.
    @Test func anExternalEntityReadsAsEmptyTextInADocumentAndFailsAStream() async throws {
        let secret = try SecretFile()
        defer { secret.remove() }
        let payload = "<!DOCTYPE r [<!ENTITY xxe SYSTEM \"file://\(secret.url.path)\">]><r>before&xxe;after</r>"
        let document = try XMLTree(string: payload)
        #expect(document.root.text == "beforeafter")
        let result = await collect(ChunkedBytes(payload, sizes: [payload.utf8.count]).xmlElements(named: "r"))
        #expect(result.elements.isEmpty)
        #expect((result.error as? XMLParseError)?.kind == .unsupportedDeclaration)
    }

    static let billionLaughs: String = {
        var text = "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n <!ENTITY lol \"lol\">\n"
        for level in 1...9 {
            let previous = level == 1 ? "lol" : "lol\(level - 1)"
            text += " <!ENTITY lol\(level) \"" + String(repeating: "&\(previous);", count: 10) + "\">\n"
        }
        return text + "]>\n<lolz>&lol9;</lolz>\n"
    }()

    @Test func billionLaughsIsRejected() throws {
        // Its time and memory are bounded in XMLSecurityTimingTests, where no other test runs.
        let error = #expect(throws: XMLParseError.self) { try XMLTree(string: Self.billionLaughs) }
        #expect(error?.kind == .entityExpansion)
        #expect(error?.message.contains("billion laughs") == true)
        #expect(error?.line == 14)
    }

    @Test func billionLaughsIsRejectedInAttributes() throws {
        let attack = Self.billionLaughs.replacingOccurrences(of: "<lolz>&lol9;</lolz>", with: "<lolz a=\"&lol9;\"/>")
        let error = #expect(throws: XMLParseError.self) { try XMLTree(string: attack) }
        #expect(error?.kind == .entityExpansion)
    }

    @Test func quadraticBlowupIsRejected() throws {
        // 40 KB of input that would read as 100 MB of text: libxml2 2.9 accepts it, the
        // expansion budget must not.
        let attack = "<!DOCTYPE r [<!ENTITY e \"\(String(repeating: "A", count: 10_000))\">]><r>"
            + String(repeating: "&e;", count: 10_000) + "</r>"
        let error = #expect(throws: XMLParseError.self) { try XMLTree(string: attack) }
        #expect(error?.kind == .entityExpansion)
        #expect(error?.message.contains("maximumEntityExpansion") == true)
        // The same through an attribute value.
        let inAttribute = "<!DOCTYPE r [<!ENTITY e \"\(String(repeating: "A", count: 10_000))\">]><r a=\""
            + String(repeating: "&e;", count: 10_000) + "\"/>"
        let attributeError = #expect(throws: XMLParseError.self) { try XMLTree(string: inAttribute) }
        #expect(attributeError?.kind == .entityExpansion)
        // The budget is configurable, and applies to the total.
        let small = "<!DOCTYPE r [<!ENTITY e \"0123456789\">]><r>&e;&e;&e;</r>"
        #expect(try XMLTree(string: small, options: XMLParseOptions(maximumEntityExpansion: 30)).root.text.count == 30)
        #expect(throws: XMLParseError.self) {
            try XMLTree(string: small, options: XMLParseOptions(maximumEntityExpansion: 29))
        }
    }

    @Test func undeclaredEntitiesAreErrorsInStreams() async throws {
        // With an external DTD named (and never loaded), libxml2 leaves undeclared entities
        // to the application; the stream refuses them rather than dropping text.
        let xml = "<!DOCTYPE r SYSTEM \"http://127.0.0.1:9/r.dtd\"><r><item>a</item><item>&nbsp;</item></r>"
        let result = await collect(ChunkedBytes(xml, sizes: [16]).xmlElements(named: "item"))
        #expect(result.elements.map(\.text) == ["a"])
        let error = try #require(result.error as? XMLParseError)
        #expect(error.message.contains("nbsp"))
    }

    @Test func billionLaughsIsRejectedInStreams() async throws {
        let result = await collect(ChunkedBytes(Self.billionLaughs, sizes: [64]).xmlElements(named: "lolz"))
        #expect(result.elements.isEmpty)
        #expect((result.error as? XMLParseError)?.kind == .unsupportedDeclaration)
    }
}
