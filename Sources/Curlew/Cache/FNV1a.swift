import Foundation
import HTTPTypes

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// FNV-1a, 64 bits: the checksum of disk entries (it catches torn and flipped bytes, not attacks).
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var hash = value
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        value = hash
    }

    static func of(_ data: Data) -> UInt64 {
        var hash = FNV1a()
        data.withUnsafeBytes { hash.update($0) }
        return hash.value
    }
}
