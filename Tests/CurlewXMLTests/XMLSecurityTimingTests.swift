import CurlewXML
import Foundation
import Testing

/// The wall-clock limits of the XML attacks in ``XMLSecurityTests``: each is refused within a
/// second. "Timing" in the name puts the suite in the serial phase of scripts/test.sh, where no
/// other test competes for the CPU, so a second is a real bound rather than a guess about load.
@Suite("XML security: timing")
struct XMLSecurityTimingTests {
    static let limit: Duration = .seconds(1)

    @Test func externalEntitiesAreRefusedWithinASecond() throws {
        let secret = try XMLSecurityTests.SecretFile()
        defer { secret.remove() }
        for payload in try XMLSecurityTests.xxePayloads(secret) {
            let start = ContinuousClock.now
            _ = try? XMLTree(string: payload)
            #expect(ContinuousClock.now - start < Self.limit, "slow for \(payload)")
        }
    }

    @Test func billionLaughsIsRejectedWithinASecondAndLittleMemory() throws {
        let before = try ProcessMemory.residentBytes()
        let start = ContinuousClock.now
        let error = #expect(throws: XMLParseError.self) { try XMLTree(string: XMLSecurityTests.billionLaughs) }
        #expect(ContinuousClock.now - start < Self.limit)
        #expect(error?.kind == .entityExpansion)
        let after = try ProcessMemory.residentBytes()
        #expect(after - before < 32 << 20, "grew by \(after - before) bytes")
    }

    @Test func quadraticBlowupIsRejectedWithinASecond() {
        let attack = "<!DOCTYPE r [<!ENTITY e \"\(String(repeating: "A", count: 10_000))\">]><r>"
            + String(repeating: "&e;", count: 10_000) + "</r>"
        let start = ContinuousClock.now
        let error = #expect(throws: XMLParseError.self) { try XMLTree(string: attack) }
        #expect(ContinuousClock.now - start < Self.limit)
        #expect(error?.kind == .entityExpansion)
    }

    @Test func billionLaughsIsRejectedInStreamsWithinASecond() async {
        let start = ContinuousClock.now
        let result = await collect(ChunkedBytes(XMLSecurityTests.billionLaughs, sizes: [64]).xmlElements(named: "lolz"))
        #expect(ContinuousClock.now - start < Self.limit)
        #expect(result.error != nil)
    }
}
