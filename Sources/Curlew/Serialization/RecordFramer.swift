import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Splits a stream of byte chunks into records (lines, or RS-delimited JSON texts) with
/// bounded memory: it holds the current chunk and at most one partial record, which may not
/// grow past ``maximumLength``.
///
/// Feed it chunks with ``feed(_:)`` and pull records with ``nextRecord()`` until it returns
/// nil; at the end of input, ``finish()`` returns the last record if it had no terminator.
/// Records that lie inside one chunk are returned as slices of it, without copying.
struct RecordFramer {
    /// What ends a record.
    enum Terminator {
        /// LF, with a CR right before it removed (so CRLF works too).
        case newline
        /// CRLF, LF or a lone CR, as the WHATWG Server-Sent Events rules require.
        case anyNewline
        /// One byte, which is not part of the record (0x1E for RFC 7464 JSON text sequences).
        case byte(UInt8)
    }

    let terminator: Terminator
    /// The longest record accepted, in bytes, terminator excluded.
    let maximumLength: Int

    private var chunk = Data()
    private var position = 0
    private var carry = Data()
    private var skipNextLF = false
    private var atStart = true
    private var finished = false
    /// In `.anyNewline` mode: the next LF at or after `position` in the chunk, once searched
    /// for (`chunk.count` when there is none), so that a run of CR-terminated lines does not
    /// rescan the rest of the chunk for an LF at every line.
    private var nextLF: Int?

    init(terminator: Terminator, maximumLength: Int) {
        self.terminator = terminator
        self.maximumLength = max(1, maximumLength)
    }

    /// Hands over the next chunk; call only once ``nextRecord()`` has returned nil.
    mutating func feed(_ data: Data) {
        chunk = data
        position = 0
        nextLF = nil
        if atStart, !chunk.isEmpty || !carry.isEmpty {
            stripByteOrderMark()
        }
    }

    /// The next complete record in the buffered input, or nil when more input is needed.
    ///
    /// - Throws: ``CurlewError/Kind/bodyTooLarge`` when a record exceeds the maximum length.
    mutating func nextRecord() throws(CurlewError) -> Data? {
        while position < chunk.count {
            if skipNextLF {
                skipNextLF = false
                if byte(at: position) == 0x0A {
                    position += 1
                    continue
                }
            }
            guard let found = findTerminator(knownLF: &nextLF) else {
                let rest = chunk.count - position
                try checkLength(carry.count + rest)
                carry.append(slice(position, chunk.count))
                position = chunk.count
                return nil
            }
            try checkLength(carry.count + found.end - position)
            var record: Data
            if carry.isEmpty {
                record = slice(position, found.end)
            } else {
                carry.append(slice(position, found.end))
                record = carry
                carry = Data()
            }
            position = found.next
            skipNextLF = found.pendingCR
            if case .newline = terminator { record = RecordFramer.droppingTrailingCR(record) }
            return record
        }
        return nil
    }

    /// At the end of input: the unterminated last record, if any (once).
    mutating func finish() -> Data? {
        guard !finished else { return nil }
        finished = true
        guard !carry.isEmpty else { return nil }
        defer { carry = Data() }
        if case .newline = terminator { return RecordFramer.droppingTrailingCR(carry) }
        return carry
    }

    /// ``finish()``, failing with ``CurlewError/Kind/bodyTooLarge`` when the last record is
    /// longer than the maximum. Only the one or two bytes held aside as the possible start of
    /// a byte order mark can be: they are known to be a record only once the input has ended.
    mutating func finishCheckingLength() throws(CurlewError) -> Data? {
        let last = finish()
        if let last { try checkLength(last.count) }
        return last
    }

    // MARK: Helpers

    private func checkLength(_ length: Int) throws(CurlewError) {
        guard length <= maximumLength else {
            throw CurlewError(
                .bodyTooLarge,
                "a record of the stream is longer than the maximum of \(maximumLength) bytes; "
                    + "raise the maximum record length if such records are expected")
        }
    }

    private func byte(at offset: Int) -> UInt8 {
        chunk[chunk.startIndex + offset]
    }

    private func slice(_ from: Int, _ to: Int) -> Data {
        chunk[(chunk.startIndex + from)..<(chunk.startIndex + to)]
    }

    /// Where the next terminator is: the end of the record, where the next one starts, and
    /// whether a CR ended the chunk (so that an LF starting the next chunk belongs to it).
    private func findTerminator(knownLF: inout Int?) -> (end: Int, next: Int, pendingCR: Bool)? {
        let start = position
        var lfCache = knownLF
        defer { knownLF = lfCache }
        return chunk.withUnsafeBytes { raw -> (end: Int, next: Int, pendingCR: Bool)? in
            guard let base = raw.baseAddress else { return nil }
            let count = raw.count
            func find(_ byte: UInt8, from: Int, to: Int) -> Int? {
                guard from < to, let hit = memchr(base + from, Int32(byte), to - from) else { return nil }
                return base.distance(to: UnsafeRawPointer(hit))
            }
            switch terminator {
            case .newline:
                return find(0x0A, from: start, to: count).map { ($0, $0 + 1, false) }
            case .byte(let delimiter):
                return find(delimiter, from: start, to: count).map { ($0, $0 + 1, false) }
            case .anyNewline:
                if lfCache.map({ $0 < start }) ?? true {
                    lfCache = find(0x0A, from: start, to: count) ?? count
                }
                let lf = lfCache.flatMap { $0 < count ? $0 : nil }
                if let cr = find(0x0D, from: start, to: lf ?? count) {
                    if cr + 1 < count {
                        let next = raw[cr + 1] == 0x0A ? cr + 2 : cr + 1
                        return (cr, next, false)
                    }
                    return (cr, cr + 1, true)
                }
                return lf.map { ($0, $0 + 1, false) }
            }
        }
    }

    /// Drops a UTF-8 byte order mark at the very start of the stream, once three bytes are in.
    private mutating func stripByteOrderMark() {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let head = Array((Array(carry.prefix(3)) + Array(chunk.prefix(3))).prefix(3))
        if head.count < 3 && bom.starts(with: head) && !head.isEmpty {
            // Too few bytes to decide: keep them aside until more arrive.
            carry.append(chunk)
            chunk = Data()
            return
        }
        atStart = false
        guard head == bom else {
            if !carry.isEmpty {
                chunk = carry + chunk
                carry = Data()
            }
            return
        }
        let fromChunk = 3 - carry.count  // the BOM bytes still in the chunk
        carry = Data()
        chunk = chunk.dropFirst(fromChunk)
    }

    private static func droppingTrailingCR(_ record: Data) -> Data {
        record.last == 0x0D ? record.dropLast() : record
    }
}
