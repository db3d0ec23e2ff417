/// A lowercase field name of 8 to 24 bytes, compared with raw bytes eight at a time: every
/// field line of a response whose name has the length of one the transfer reads is checked
/// against it (see ``HeaderNames/role(_:)``), and comparing byte by byte cost about 70
/// instructions a line.
///
/// The name is read as three 8-byte words, at offsets 0, `min(8, count - 8)` and `count - 8`,
/// which overlap when the name is shorter than 24 bytes. Each word of the candidate is OR-ed
/// with a mask that is 0x20 at the name's letters and 0 elsewhere, then compared: at a letter
/// that accepts exactly the letter in either case, anywhere else the byte itself (a CR, 0x0D,
/// is not a `-`, 0x2D, as it would be under 0x20). The name's words are loaded from its own
/// bytes the same way, so the machine's byte order does not matter.
struct LowercaseFieldName: Sendable {
    /// The name's length in bytes; ``matches(_:)`` reads exactly that many.
    let count: Int
    /// Where the second and third words start: `min(8, count - 8)` and `count - 8`.
    private let secondOffset: Int
    private let thirdOffset: Int
    private let words: (UInt64, UInt64, UInt64)
    private let masks: (UInt64, UInt64, UInt64)

    /// `name` must be lowercase ASCII, 8 to 24 bytes (a programming error otherwise: the
    /// names are the constants of ``HeaderNames``).
    init(_ name: StaticString) {
        let bytes = Array(UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        precondition(
            (8...24).contains(bytes.count) && !bytes.contains { $0 >= 0x41 && $0 <= 0x5A || $0 >= 0x80 },
            "a lowercase ASCII name of 8 to 24 bytes")
        count = bytes.count
        let letterBits = bytes.map { $0 >= 0x61 && $0 <= 0x7A ? UInt8(0x20) : 0 }
        secondOffset = min(8, bytes.count - 8)
        thirdOffset = bytes.count - 8
        func word(_ source: [UInt8], at offset: Int) -> UInt64 {
            source.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self) }
        }
        words = (word(bytes, at: 0), word(bytes, at: secondOffset), word(bytes, at: thirdOffset))
        masks = (word(letterBits, at: 0), word(letterBits, at: secondOffset), word(letterBits, at: thirdOffset))
    }

    /// Whether the ``count`` bytes at `base` are this name in any ASCII case.
    @inline(__always)
    func matches(_ base: UnsafeRawPointer) -> Bool {
        base.loadUnaligned(as: UInt64.self) | masks.0 == words.0
            && base.loadUnaligned(fromByteOffset: secondOffset, as: UInt64.self) | masks.1 == words.1
            && base.loadUnaligned(fromByteOffset: thirdOffset, as: UInt64.self) | masks.2 == words.2
    }
}
