import Foundation

/// One part of a ``MultipartFormData`` form: its rendered header block and where its content
/// comes from.
struct MultipartPart: Sendable {
    /// Where the content of a part comes from.
    enum Content: Sendable {
        /// Bytes in memory.
        case data(Data)
        /// A regular file, read in chunks as it is sent.
        case file(URL)
        /// A stream of chunks; the factory is called once per attempt.
        case stream(@Sendable () -> ChunkSource)
    }

    /// `Content-Disposition` and optional `Content-Type` lines, each ending in CRLF, followed
    /// by the empty line that ends the header block.
    let headerBlock: Data
    /// The content.
    let content: Content
    /// The exact length of the content in bytes; nil for a stream of unknown length.
    let length: Int64?

    /// Builds a part, checking and escaping the name, file name and MIME type.
    init(name: String, fileName: String?, mimeType: String?, content: Content, length: Int64?) throws(CurlewError) {
        var header = "Content-Disposition: form-data; name=\"\(try MultipartPart.escape(name, what: "name"))\""
        if let fileName {
            header += "; filename=\"\(try MultipartPart.escape(fileName, what: "file name"))\""
        }
        header += "\r\n"
        if let mimeType {
            try MultipartPart.checkMIMEType(mimeType)
            header += "Content-Type: \(mimeType)\r\n"
        }
        header += "\r\n"
        self.headerBlock = Data(header.utf8)
        self.content = content
        self.length = length
    }

    /// Escapes a name or file name for a quoted header parameter, as the WHATWG HTML standard
    /// does for `multipart/form-data`: `"` becomes `%22`. CR, LF and NUL would let the value
    /// forge headers or end the header block, so they are rejected.
    static func escape(_ value: String, what: String) throws(CurlewError) -> String {
        if value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) {
            throw CurlewError(
                .invalidRequest,
                "the multipart \(what) \(value.debugDescription) contains CR, LF or NUL, which cannot be sent")
        }
        return value.replacingOccurrences(of: "\"", with: "%22")
    }

    /// A MIME type must be a visible-ASCII `type/subtype` with optional parameters.
    static func checkMIMEType(_ mimeType: String) throws(CurlewError) {
        let bytes = Array(mimeType.utf8)
        let printable = bytes.allSatisfy { $0 == 0x20 || $0 == 0x09 || (0x21...0x7E).contains($0) }
        guard printable, let slash = bytes.firstIndex(of: UInt8(ascii: "/")), slash > 0,
            slash + 1 < bytes.count
        else {
            throw CurlewError(
                .invalidRequest, "\(mimeType.debugDescription) is not a valid MIME type for a multipart part")
        }
    }
}
