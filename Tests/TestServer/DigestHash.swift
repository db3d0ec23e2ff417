import Foundation

/// MD5 (RFC 1321) and SHA-256 (FIPS 180-4), written out for the test server's Digest
/// authentication, so that it checks libcurl's responses with hashing of its own rather than
/// with the OpenSSL that libcurl uses. Not for anything but tests.
public enum DigestHash: String, Sendable, CaseIterable {
    case md5 = "MD5"
    case sha256 = "SHA-256"

    /// The lowercase hex digest of the UTF-8 of `text`, as RFC 7616 uses it.
    public func hex(_ text: String) -> String {
        let digest = self == .md5 ? Self.md5(Array(text.utf8)) : Self.sha256(Array(text.utf8))
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(digest.count * 2)
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The message padded to a multiple of 64 bytes: 0x80, zeros, then the bit length in 8
    /// bytes, little-endian for MD5 and big-endian for SHA-256.
    private static func padded(_ message: [UInt8], bigEndianLength: Bool) -> [UInt8] {
        var bytes = message
        bytes.append(0x80)
        while bytes.count % 64 != 56 { bytes.append(0) }
        let bits = UInt64(message.count) &* 8
        for index in 0..<8 {
            let shift = bigEndianLength ? UInt64(56 - 8 * index) : UInt64(8 * index)
            bytes.append(UInt8(truncatingIfNeeded: bits >> shift))
        }
        return bytes
    }

    private static let md5Shifts: [UInt32] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
        5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
        4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
        6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ]

    /// floor(abs(sin(i + 1)) * 2^32), computed rather than pasted.
    private static let md5Constants: [UInt32] = (0..<64).map { index in
        UInt32(truncatingIfNeeded: Int64((abs(sin(Double(index + 1))) * 4_294_967_296).rounded(.down)))
    }

    private static func md5(_ message: [UInt8]) -> [UInt8] {
        var state: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476]
        let bytes = padded(message, bigEndianLength: false)
        for chunk in stride(from: 0, to: bytes.count, by: 64) {
            var words = [UInt32](repeating: 0, count: 16)
            for index in 0..<16 {
                for byte in 0..<4 { words[index] |= UInt32(bytes[chunk + index * 4 + byte]) << (8 * UInt32(byte)) }
            }
            var (a, b, c, d) = (state[0], state[1], state[2], state[3])
            for round in 0..<64 {
                var f: UInt32
                let g: Int
                switch round {
                case 0..<16: f = (b & c) | (~b & d); g = round
                case 16..<32: f = (d & b) | (~d & c); g = (5 * round + 1) % 16
                case 32..<48: f = b ^ c ^ d; g = (3 * round + 5) % 16
                default: f = c ^ (b | ~d); g = (7 * round) % 16
                }
                f = f &+ a &+ md5Constants[round] &+ words[g]
                a = d
                d = c
                c = b
                b = b &+ rotateLeft(f, md5Shifts[round])
            }
            state[0] = state[0] &+ a
            state[1] = state[1] &+ b
            state[2] = state[2] &+ c
            state[3] = state[3] &+ d
        }
        return state.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * UInt32($0))) } }
    }

    private static let sha256Constants: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    private static func sha256(_ message: [UInt8]) -> [UInt8] {
        var state: [UInt32] = [
            0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
        ]
        let bytes = padded(message, bigEndianLength: true)
        var words = [UInt32](repeating: 0, count: 64)
        for chunk in stride(from: 0, to: bytes.count, by: 64) {
            for index in 0..<16 {
                words[index] = 0
                for byte in 0..<4 { words[index] = words[index] << 8 | UInt32(bytes[chunk + index * 4 + byte]) }
            }
            for index in 16..<64 {
                let s0 = rotateRight(words[index - 15], 7) ^ rotateRight(words[index - 15], 18) ^ (words[index - 15] >> 3)
                let s1 = rotateRight(words[index - 2], 17) ^ rotateRight(words[index - 2], 19) ^ (words[index - 2] >> 10)
                words[index] = words[index - 16] &+ s0 &+ words[index - 7] &+ s1
            }
            var h = state
            for index in 0..<64 {
                let s1 = rotateRight(h[4], 6) ^ rotateRight(h[4], 11) ^ rotateRight(h[4], 25)
                let choice = (h[4] & h[5]) ^ (~h[4] & h[6])
                let t1 = h[7] &+ s1 &+ choice &+ sha256Constants[index] &+ words[index]
                let s0 = rotateRight(h[0], 2) ^ rotateRight(h[0], 13) ^ rotateRight(h[0], 22)
                let majority = (h[0] & h[1]) ^ (h[0] & h[2]) ^ (h[1] & h[2])
                let t2 = s0 &+ majority
                h = [t1 &+ t2, h[0], h[1], h[2], h[3] &+ t1, h[4], h[5], h[6]]
            }
            for index in 0..<8 { state[index] = state[index] &+ h[index] }
        }
        return state.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (24 - 8 * UInt32($0))) } }
    }

    private static func rotateLeft(_ value: UInt32, _ count: UInt32) -> UInt32 {
        value << count | value >> (32 - count)
    }

    private static func rotateRight(_ value: UInt32, _ count: UInt32) -> UInt32 {
        value >> count | value << (32 - count)
    }
}
