@testable import Curlew
import Foundation
import Testing

/// Regression tests for a chunking bug found by the `contentdecoder` fuzz target (Fuzz/): a
/// raw deflate body (sent as `Content-Encoding: deflate`, which Curlew accepts) whose first
/// piece was a single byte failed as corrupt, while the same bytes in one piece decoded. zlib
/// had taken that byte while waiting for its two-byte header, and the retry as raw deflate
/// was only tried on the first piece and without the bytes of earlier pieces.
@Suite("ContentDecoder: raw deflate in pieces")
struct ContentDecoderPieceTests {
    // Computed, not stored: LeakSanitizer does not see a `Data` held in a Swift global (the
    // enum's tag bits hide the pointer) and reports it as leaked.
    static var plain: Data { Data(String(repeating: "Curlew decodes raw deflate whatever the pieces: ", count: 4).utf8) }
    /// `plain` as raw deflate (zlib.compressobj(6, DEFLATED, -15)).
    static let rawDeflate: [UInt8] = [
        0x73, 0x2E, 0x2D, 0xCA, 0x49, 0x2D, 0x57, 0x48, 0x49, 0x4D, 0xCE, 0x4F, 0x49, 0x2D, 0x56, 0x28, 0x4A, 0x04,
        0xB1, 0xD3, 0x72, 0x12, 0x4B, 0x52, 0x15, 0xCA, 0x33, 0x80, 0x64, 0x59, 0x6A, 0x91, 0x42, 0x49, 0x46, 0xAA,
        0x42, 0x41, 0x66, 0x6A, 0x72, 0x6A, 0xB1, 0x95, 0x82, 0xF3, 0x20, 0x53, 0x0F, 0x00,
    ]

    static func decode(_ bytes: [UInt8], pieces sizes: [Int]) throws -> Data {
        guard let decoder = try ContentDecoder(contentEncoding: "deflate") else { return Data(bytes) }
        var output = Data()
        var offset = 0
        var index = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + max(1, sizes[index % sizes.count]))
            let piece = Array(bytes[offset..<end])
            try piece.withUnsafeBytes { raw in
                try decoder.decode(raw) { decoded in output.append(contentsOf: decoded) }
            }
            offset = end
            index += 1
        }
        try decoder.finish()
        return output
    }

    @Test(arguments: [[Int.max], [1], [1, 1000], [2], [3, 1], [1, 1, 1, 7]])
    func rawDeflateDecodesWhateverThePieces(_ sizes: [Int]) throws {
        #expect(try Self.decode(Self.rawDeflate, pieces: sizes) == Self.plain)
    }

    @Test func rawDeflateWithTrailingBytesStillDecodes() throws {
        // Bytes after the end of a deflate stream are ignored, in any pieces.
        for sizes in [[Int.max], [1]] {
            #expect(try Self.decode(Self.rawDeflate + [0x00, 0xFF, 0x1F], pieces: sizes) == Self.plain)
        }
    }

    @Test func zlibDeflateStillDecodesInOneBytePieces() throws {
        // The same text as a zlib stream (the RFC 9110 "deflate"): header 78 9C, adler-32 after.
        let zlib: [UInt8] = [0x78, 0x9C] + Self.rawDeflate + Self.adler32(Self.plain)
        #expect(try Self.decode(zlib, pieces: [1]) == Self.plain)
        #expect(try Self.decode(zlib, pieces: [Int.max]) == Self.plain)
    }

    @Test func corruptDeflateStillFailsInPieces() {
        for sizes in [[Int.max], [1]] {
            #expect(throws: CurlewError.self) { _ = try Self.decode([0xFF, 0xFF, 0xFF, 0xFF], pieces: sizes) }
        }
    }

    static func adler32(_ data: Data) -> [UInt8] {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        let value = b << 16 | a
        return [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
