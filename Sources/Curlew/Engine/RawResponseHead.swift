import HTTPTypes

/// A response head as libcurl delivered it: the status code, the reason phrase and the field
/// lines as bytes, with each line's offsets. ``makeResponse()`` turns it into the
/// `HTTPResponse` that parsing every line at once used to make, field for field.
struct RawResponseHead: Sendable {
    /// Where one field line sits in ``bytes``: its name is `start..<colon`, its value
    /// `valueStart..<end` (blanks after the colon skipped; CR and LF already cut off the end).
    struct Line: Sendable {
        var start: Int32
        var colon: Int32
        var valueStart: Int32
        var end: Int32
    }

    let statusCode: Int
    /// The reason phrase (`0..<reasonEnd`), then every field line in turn.
    let bytes: [UInt8]
    let reasonEnd: Int
    /// The lines that have a colon, in order; a line without one is not a field.
    let lines: [Line]
    /// The index in ``lines`` of the only `Content-Type` line; nil when there is none or more
    /// than one (see ``contentType``).
    let contentTypeLine: Int?
    /// How many `Content-Type` lines the head has.
    let contentTypeCount: Int

    /// The head with every line whose name is a valid field name as a field, in order;
    /// ASCII values as Strings, others as their raw bytes — as the eager parse made it.
    func makeResponse() -> HTTPResponse {
        bytes.withUnsafeBytes { buffer in
            var fields = HTTPFields()
            fields.reserveCapacity(lines.count)
            for line in lines {
                let name = UnsafeRawBufferPointer(rebasing: buffer[Int(line.start)..<Int(line.colon)])
                guard let fieldName = HeaderNames.name(name) else { continue }
                fields.append(Self.field(fieldName, UnsafeRawBufferPointer(rebasing: buffer[Int(line.valueStart)..<Int(line.end)])))
            }
            let reason = String(decoding: UnsafeRawBufferPointer(rebasing: buffer[0..<reasonEnd]), as: UTF8.self)
            return HTTPResponse(status: HTTPResponse.Status(code: statusCode, reasonPhrase: reason), headerFields: fields)
        }
    }

    /// `headerFields[.contentType]` of ``makeResponse()``: nil (not known) when the head has
    /// several `Content-Type` fields, which the built head joins; `.some(nil)` when it has none.
    var contentType: String?? {
        if contentTypeCount == 0 { return .some(nil) }
        guard let index = contentTypeLine, contentTypeCount == 1 else { return nil }
        let line = lines[index]
        return bytes.withUnsafeBytes { buffer in
            .some(Self.field(.contentType, UnsafeRawBufferPointer(rebasing: buffer[Int(line.valueStart)..<Int(line.end)])).value)
        }
    }

    /// One field, made as the eager parse made it: ASCII values (nearly all) take the fast
    /// String path; others keep their raw bytes.
    private static func field(_ name: HTTPField.Name, _ value: UnsafeRawBufferPointer) -> HTTPField {
        value.allSatisfy { $0 < 0x80 }
            ? HTTPField(name: name, value: String(decoding: value, as: UTF8.self))
            : HTTPField(name: name, value: value)
    }
}
