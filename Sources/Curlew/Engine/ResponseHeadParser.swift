#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads a response head from the bytes of its lines, as libcurl handed them to the header
/// callback (line ends included) and the C side gathered them (see ``EasyHandle/headBuffer``).
///
/// A status line starts a head (and drops any head before it in the same bytes); a blank line
/// ends it. Field lines are only looked at: the few fields the transfer reads are noted
/// (``HeadNotes``), nothing is copied line by line, validated or made into a String. At the
/// end, ``takeHead()`` copies the head's bytes once into a ``ResponseHead``, which finds the
/// fields again (``RawResponseHead/makeResponse()``) and builds the `HTTPResponse` only when
/// someone reads it.
struct ResponseHeadParser {
    /// What the bytes held.
    enum Reading: Equatable {
        /// A head up to its blank line: ``statusCode``, ``notes`` and ``takeHead()`` describe it
        /// (a status code of 0: no status line came before the blank line).
        case ended
        /// Lines without a blank one: a head that was cut off.
        case unfinished
        /// A line starting with `HTTP/` that is not a valid status line (its first 80 bytes).
        case malformedStatusLine(String)
    }

    /// The status code of the head read; 0 before its status line.
    private(set) var statusCode = 0
    /// What the transfer reads of the head read.
    private(set) var notes = HeadNotes()
    /// Whether a valid status line was among the bytes read.
    private(set) var sawStatusLine = false
    /// The bytes of the head read, from its status line to its blank line (excluded).
    private var head: UnsafeRawBufferPointer?
    /// The reason phrase, and where the field lines start, within ``head``.
    private var reason = 0..<0
    private var fieldsStart = 0

    /// Reads `bytes`, which the caller keeps valid until ``takeHead()``.
    ///
    /// Finds lines and fields with ``RawResponseHead``'s helpers (raw loads, libc's `memchr`)
    /// and views each line in place, without bounds-checked slices. Slicing each line and
    /// comparing names byte by byte cost about 190 instructions a line; this costs about 135,
    /// with the names compared word-wise (``HeaderNames/role(_:)``).
    mutating func read(_ bytes: UnsafeRawBufferPointer) -> Reading {
        statusCode = 0
        notes = HeadNotes()
        sawStatusLine = false
        head = nil
        reason = 0..<0
        fieldsStart = 0
        guard let base = bytes.baseAddress else { return .unfinished }
        var headStart = 0
        var start = 0
        while start < bytes.count {
            let line = RawResponseHead.line(in: bytes, from: start)
            defer { start = line.next }
            let content = UnsafeRawBufferPointer(start: base + start, count: line.content.count)
            if content.isEmpty {
                head = UnsafeRawBufferPointer(start: base + headStart, count: start - headStart)
                return .ended
            }
            if content.load(as: UInt8.self) == UInt8(ascii: "H"), RawResponseHead.startsWithHTTPSlash(content) {
                guard let (code, reasonStart) = Self.statusLine(content) else {
                    return .malformedStatusLine(String(decoding: content.prefix(80), as: UTF8.self))
                }
                // A new head: what came before (an interim head, a challenge libcurl answered) is dropped.
                statusCode = code
                notes = HeadNotes()
                sawStatusLine = true
                headStart = start
                reason = reasonStart..<content.count
                fieldsStart = line.next - start
                continue
            }
            guard let field = RawResponseHead.field(content) else { continue }
            let role = HeaderNames.role(UnsafeRawBufferPointer(start: content.baseAddress, count: field.colon))
            if role != .other {
                notes.note(
                    role, value: UnsafeRawBufferPointer(rebasing: content[field.valueStart...]), lineStart: start - headStart)
            }
        }
        return .unfinished
    }

    /// The head read, as a head built on first access; its bytes are copied out of the
    /// caller's, which the parser forgets. Only after ``read(_:)`` returned ``Reading/ended``.
    mutating func takeHead() -> ResponseHead {
        defer { head = nil }
        let raw = RawResponseHead(
            statusCode: statusCode, bytes: head.map(Array.init) ?? [], reason: reason, fieldsStart: fieldsStart,
            contentTypeLine: notes.contentTypeLine, contentTypeCount: notes.contentTypeCount)
        return ResponseHead(raw: raw)
    }

    /// "HTTP/1.1 200 OK" or "HTTP/2 200": the version, spaces, three digits, then a space and
    /// the reason phrase, or the end. The code and where the reason phrase starts; nil when
    /// the line is not one.
    private static func statusLine(_ line: UnsafeRawBufferPointer) -> (code: Int, reasonStart: Int)? {
        guard var index = line.firstIndex(of: 0x20) else { return nil }
        while index < line.count && line[index] == 0x20 { index += 1 }
        guard index + 3 <= line.count else { return nil }
        var code = 0
        for digit in line[index..<index + 3] {
            guard digit >= 0x30 && digit <= 0x39 else { return nil }
            code = code * 10 + Int(digit - 0x30)
        }
        index += 3
        guard (100...599).contains(code), index == line.count || line[index] == 0x20 else { return nil }
        while index < line.count && line[index] == 0x20 { index += 1 }
        return (code, index)
    }
}
