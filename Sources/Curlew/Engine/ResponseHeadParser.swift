#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads a response head from the lines libcurl hands the header callback, one at a time.
///
/// A status line starts a head (and drops any head before it: a 1xx, a challenge libcurl
/// answered); each field line's bytes are appended to one buffer, with its offsets, and the
/// few fields the transfer reads are noted (``HeadNotes``). Nothing is validated or made into
/// a String here: ``takeHead()`` hands the bytes to a ``ResponseHead``, which builds the
/// `HTTPResponse` only when someone reads it.
struct ResponseHeadParser {
    /// What a line was.
    enum Line: Equatable {
        /// A field line, or a line that is not one (no colon), which is ignored.
        case field
        /// A valid status line: a new head starts.
        case statusLine
        /// A line starting with `HTTP/` that is not a valid status line.
        case malformedStatusLine
        /// The blank line that ends a head.
        case blank
    }

    /// The status code of the head being parsed; 0 before its status line.
    private(set) var statusCode = 0
    /// What the transfer reads of the head being parsed.
    private(set) var notes = HeadNotes()
    private var bytes: [UInt8] = []
    private var reasonEnd = 0
    private var lines: [RawResponseHead.Line] = []

    /// Reads one line, without its CR LF.
    mutating func parse(_ content: UnsafeRawBufferPointer) -> Line {
        if content.isEmpty { return .blank }
        if content.first == UInt8(ascii: "H"), content.starts(with: "HTTP/".utf8) {
            return parseStatusLine(content) ? .statusLine : .malformedStatusLine
        }
        // libc's memchr: the generic search checked bounds at every byte of every line.
        guard let base = content.baseAddress, let found = memchr(base, Int32(UInt8(ascii: ":")), content.count) else {
            return .field
        }
        let colon = base.distance(to: UnsafeRawPointer(found))
        var valueStart = colon + 1
        while valueStart < content.count && (content[valueStart] == 0x20 || content[valueStart] == 0x09) {
            valueStart += 1
        }
        let role = HeaderNames.role(UnsafeRawBufferPointer(rebasing: content[0..<colon]))
        if role != .other {
            notes.note(role, value: UnsafeRawBufferPointer(rebasing: content[valueStart...]), line: lines.count)
        }
        let start = bytes.count
        bytes.append(contentsOf: content)
        lines.append(RawResponseHead.Line(
            start: Int32(start), colon: Int32(start + colon), valueStart: Int32(start + valueStart),
            end: Int32(start + content.count)))
        return .field
    }

    /// Forgets the head being parsed (an interim 1xx head, or a new hop).
    mutating func reset() {
        statusCode = 0
        notes = HeadNotes()
        bytes.removeAll(keepingCapacity: true)
        reasonEnd = 0
        lines.removeAll(keepingCapacity: true)
    }

    /// The head parsed so far, as a head built on first access. Its bytes move to the head;
    /// the status code and notes stay readable until the next status line or reset.
    mutating func takeHead() -> ResponseHead {
        let raw = RawResponseHead(
            statusCode: statusCode, bytes: bytes, reasonEnd: reasonEnd, lines: lines,
            contentTypeLine: notes.contentTypeLine, contentTypeCount: notes.contentTypeCount)
        bytes = []
        lines = []
        reasonEnd = 0
        return ResponseHead(raw: raw)
    }

    /// "HTTP/1.1 200 OK" or "HTTP/2 200": the version, spaces, three digits, then a space and
    /// the reason phrase, or the end. On success a new head starts, holding the reason phrase.
    private mutating func parseStatusLine(_ line: UnsafeRawBufferPointer) -> Bool {
        guard var index = line.firstIndex(of: 0x20) else { return false }
        while index < line.count && line[index] == 0x20 { index += 1 }
        guard index + 3 <= line.count else { return false }
        var code = 0
        for digit in line[index..<index + 3] {
            guard digit >= 0x30 && digit <= 0x39 else { return false }
            code = code * 10 + Int(digit - 0x30)
        }
        index += 3
        guard (100...599).contains(code), index == line.count || line[index] == 0x20 else { return false }
        while index < line.count && line[index] == 0x20 { index += 1 }
        reset()
        statusCode = code
        if bytes.capacity == 0 {
            bytes.reserveCapacity(512)
            lines.reserveCapacity(16)
        }
        bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: line[index...]))
        reasonEnd = bytes.count
        return true
    }
}
