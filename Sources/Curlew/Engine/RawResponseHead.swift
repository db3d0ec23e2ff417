#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import HTTPTypes

/// A response head as libcurl delivered it: the status code, and the bytes of its status line
/// and field lines, line ends included. ``makeResponse()`` turns it into the `HTTPResponse`
/// that parsing every line at once used to make, field for field.
struct RawResponseHead: Sendable {
    let statusCode: Int
    /// The status line, then the field lines, each with its CR LF (the blank line left out).
    let bytes: [UInt8]
    /// The reason phrase within ``bytes``.
    let reason: Range<Int>
    /// Where the first field line starts: after the status line.
    let fieldsStart: Int
    /// The offset in ``bytes`` of the only `Content-Type` line; nil when there is none or more
    /// than one (see ``contentType``).
    let contentTypeLine: Int?
    /// How many `Content-Type` lines the head has.
    let contentTypeCount: Int

    /// The head with every line whose name is a valid field name as a field, in order;
    /// ASCII values as Strings, others as their raw bytes — as the eager parse made it.
    func makeResponse() -> HTTPResponse {
        bytes.withUnsafeBytes { buffer in
            var fields = HTTPFields()
            var start = fieldsStart
            while start < buffer.count {
                let line = Self.line(in: buffer, from: start)
                start = line.next
                let content = UnsafeRawBufferPointer(rebasing: buffer[line.content])
                guard let field = Self.field(content) else { continue }
                guard let fieldName = HeaderNames.name(UnsafeRawBufferPointer(rebasing: content[0..<field.colon])) else {
                    continue
                }
                let value = UnsafeRawBufferPointer(rebasing: content[field.valueStart...])
                // RFC 6265bis §5.6: a Set-Cookie with a control character is ignored entirely.
                // Made a field, the character would become a space and a cookie be stored.
                if fieldName == .setCookie, value.contains(where: Self.isControlCharacter) { continue }
                fields.append(Self.field(fieldName, value))
            }
            let reason = String(decoding: UnsafeRawBufferPointer(rebasing: buffer[reason]), as: UTF8.self)
            return HTTPResponse(status: HTTPResponse.Status(code: statusCode, reasonPhrase: reason), headerFields: fields)
        }
    }

    /// `headerFields[.contentType]` of ``makeResponse()``: nil (not known) when the head has
    /// several `Content-Type` fields, which the built head joins; `.some(nil)` when it has none.
    var contentType: String?? {
        if contentTypeCount == 0 { return .some(nil) }
        guard let offset = contentTypeLine, contentTypeCount == 1 else { return nil }
        return bytes.withUnsafeBytes { buffer in
            let content = UnsafeRawBufferPointer(rebasing: buffer[Self.line(in: buffer, from: offset).content])
            guard let field = Self.field(content) else { return nil }
            return .some(Self.field(.contentType, UnsafeRawBufferPointer(rebasing: content[field.valueStart...])).value)
        }
    }

    /// The line that starts at `start`: its content, without the CR and LF that end it, and
    /// where the next line starts. A last line without its LF is read as it is.
    /// `start` is below `bytes.count`. Raw loads, not bounds-checked subscripts: the head
    /// parser (``ResponseHeadParser/read(_:)``) calls this for every line of every head.
    static func line(in bytes: UnsafeRawBufferPointer, from start: Int) -> (content: Range<Int>, next: Int) {
        guard let base = bytes.baseAddress else { return (start..<start, bytes.count) }
        var next = bytes.count
        // libc's memchr: the generic search checked bounds at every byte of every line.
        if let found = memchr(base + start, 0x0A, bytes.count - start) {
            next = base.distance(to: UnsafeRawPointer(found)) + 1
        }
        var end = next
        while end > start {
            let last = base.load(fromByteOffset: end - 1, as: UInt8.self)
            guard last == 0x0A || last == 0x0D else { break }
            end -= 1
        }
        return (start..<end, next)
    }

    /// Where a field line's colon is and its value starts (blanks after the colon skipped);
    /// nil for a line without a colon, which is not a field.
    static func field(_ content: UnsafeRawBufferPointer) -> (colon: Int, valueStart: Int)? {
        guard let base = content.baseAddress, let found = memchr(base, Int32(UInt8(ascii: ":")), content.count) else {
            return nil
        }
        let colon = base.distance(to: UnsafeRawPointer(found))
        var valueStart = colon + 1
        while valueStart < content.count {
            let byte = base.load(fromByteOffset: valueStart, as: UInt8.self)
            guard byte == 0x20 || byte == 0x09 else { break }
            valueStart += 1
        }
        return (colon, valueStart)
    }

    /// Whether `content` starts with `HTTP/`, as a status line does.
    static func startsWithHTTPSlash(_ content: UnsafeRawBufferPointer) -> Bool {
        content.count >= 5 && content[0] == UInt8(ascii: "H") && content[1] == UInt8(ascii: "T")
            && content[2] == UInt8(ascii: "T") && content[3] == UInt8(ascii: "P") && content[4] == UInt8(ascii: "/")
    }

    /// A control character other than HTAB.
    private static func isControlCharacter(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09) || byte == 0x7F
    }

    /// One field, made as the eager parse made it: ASCII values (nearly all) take the fast
    /// String path; others keep their raw bytes.
    private static func field(_ name: HTTPField.Name, _ value: UnsafeRawBufferPointer) -> HTTPField {
        value.allSatisfy { $0 < 0x80 }
            ? HTTPField(name: name, value: String(decoding: value, as: UTF8.self))
            : HTTPField(name: name, value: value)
    }
}
