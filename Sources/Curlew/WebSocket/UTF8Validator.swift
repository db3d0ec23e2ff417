/// Checks UTF-8 (RFC 3629) a piece at a time, so that a text message split over frames (or a
/// frame over reads) is refused at its first bad byte, and a sequence cut between two pieces
/// is carried over.
///
/// Refused: bytes that never occur (C0, C1, F5–FF), a continuation byte out of place, overlong
/// forms (E0 80–9F, F0 80–8F), UTF-16 surrogates (ED A0–BF) and code points above U+10FFFF
/// (F4 90–BF).
struct UTF8Validator: Sendable, Equatable {
    /// Continuation bytes still expected by the sequence in progress.
    private var remaining = 0
    /// The range of the next continuation byte (narrower than 80–BF right after some leads).
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    /// Whether no sequence is left unfinished: the end of a text message must find it so.
    var isComplete: Bool { remaining == 0 }

    /// Reads `bytes`; false at the first byte that cannot be UTF-8 (the state is then
    /// meaningless).
    mutating func validate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            index += 1
            if remaining == 0 {
                if byte < 0x80 { continue }
                switch byte {
                case 0xC2...0xDF: expect(1, 0x80, 0xBF)
                case 0xE0: expect(2, 0xA0, 0xBF)
                case 0xE1...0xEC, 0xEE...0xEF: expect(2, 0x80, 0xBF)
                case 0xED: expect(2, 0x80, 0x9F)
                case 0xF0: expect(3, 0x90, 0xBF)
                case 0xF1...0xF3: expect(3, 0x80, 0xBF)
                case 0xF4: expect(3, 0x80, 0x8F)
                default: return false
                }
            } else {
                guard byte >= lower, byte <= upper else { return false }
                remaining -= 1
                lower = 0x80
                upper = 0xBF
            }
        }
        return true
    }

    /// Reads `bytes`; see ``validate(_:)-(UnsafeRawBufferPointer)``.
    mutating func validate(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { validate($0) }
    }

    private mutating func expect(_ count: Int, _ lower: UInt8, _ upper: UInt8) {
        remaining = count
        self.lower = lower
        self.upper = upper
    }
}
