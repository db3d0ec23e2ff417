import Foundation
import Testing
import TestServer

/// The measure every memory bound relies on: if `ResidentMemory.bytes()` read the wrong field
/// or the wrong unit, "grew by less than N" would pass for anything. "Memory" in the name runs
/// this in the serial phase, where no other test allocates meanwhile.
@Suite("Resident memory measurement")
struct ResidentMemoryTests {
    @Test func residentMemoryRisesByTheBytesTouched() throws {
        let size = 64 << 20
        let before = try ResidentMemory.bytes()
        let block = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 4096)
        defer { block.deallocate() }
        // Writing every byte makes every page resident (an untouched allocation is not).
        block.initializeMemory(as: UInt8.self, repeating: 0xA5, count: size)
        let after = try ResidentMemory.bytes()
        #expect(block.load(fromByteOffset: size - 1, as: UInt8.self) == 0xA5)
        #expect(after - before >= 48 << 20, "RSS rose by \(after - before) bytes for 64 MiB touched")
        #expect(after - before < 256 << 20, "RSS rose by \(after - before) bytes: a unit error?")
    }
}
