import Foundation
import HTTPTypes

/// A `multipart/form-data` body (RFC 7578) built from text fields, data, files and streams.
///
/// ```swift
/// var form = MultipartFormData()
/// try form.append("Ann", withName: "name")
/// try form.append(fileAt: videoURL, withName: "video")          // video/quicktime, "clip.mov"
/// try form.append(jpegData, withName: "avatar", fileName: "me.jpg")
/// let upload = session.upload(.multipart(form), to: url)   // Content-Type with the boundary
/// ```
///
/// Below 10 MiB of total size the form is encoded into one
/// `Data`. Above it, or when a part is a stream, the body is a replayable stream that reads
/// files in chunks as they are sent, so a 2 GiB file is never held in memory. The exact
/// ``contentLength`` is known up front, so upload progress has a total — unless a part is a
/// stream of unknown length (``append(withName:fileName:mimeType:_:)``): then the body is sent
/// as it is produced, chunked over HTTP/1.1 (`Transfer-Encoding: chunked`) and in DATA frames
/// over HTTP/2, and ``contentLength`` is nil.
///
/// Names and file names are sent as UTF-8 inside quotes with `"` escaped as `%22`, as
/// browsers do; a CR, LF or NUL in them is rejected with
/// ``CurlewError/Kind/invalidRequest`` because it could forge headers.
public struct MultipartFormData: Sendable {
    /// The total size up to which ``makeBody(inMemoryThreshold:)`` encodes in memory: 10 MiB.
    static let defaultInMemoryThreshold: Int64 = 10 * 1024 * 1024

    /// The boundary between parts.
    public let boundary: String
    private var parts: [MultipartPart] = []
    /// `--` and a boundary the caller chose, which part content must not contain: content
    /// holding it would end its part early and start parts of its own. Nil for the random
    /// boundary, which no content holds by chance.
    private let guardedDelimiter: Data?

    /// Creates an empty form with a random boundary.
    public init() {
        self.boundary = MultipartFormData.randomBoundary()
        guardedDelimiter = nil
    }

    /// Creates an empty form with the given boundary.
    ///
    /// - Throws: ``CurlewError/Kind/invalidRequest`` unless the boundary has 1 to 70
    ///   characters from RFC 2046's set (`A-Z a-z 0-9 '()+_,-./:=?` and space, not last).
    public init(boundary: String) throws(CurlewError) {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'()+_,-./:=? ".utf8)
        guard (1...70).contains(boundary.utf8.count), boundary.utf8.allSatisfy(allowed.contains),
            boundary.utf8.last != UInt8(ascii: " ")
        else {
            throw CurlewError(.invalidRequest, "\(boundary.debugDescription) is not a valid multipart boundary")
        }
        self.boundary = boundary
        guardedDelimiter = Data("--\(boundary)".utf8)
    }

    /// Fails when in-memory content holds the caller's boundary (see ``guardedDelimiter``).
    private func checkContent(_ data: Data) throws(CurlewError) {
        guard let guardedDelimiter, data.range(of: guardedDelimiter) != nil else { return }
        throw Self.boundaryInContent(boundary)
    }

    static func boundaryInContent(_ boundary: String) -> CurlewError {
        CurlewError(
            .invalidRequest,
            "a part's content contains the form's boundary '\(boundary)', so it would split into parts of its own; use the random boundary")
    }

    /// A random boundary: `curlew-form-` and 32 hexadecimal digits (128 random bits), which
    /// will not occur in any content by chance.
    static func randomBoundary() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        func hex16(_ value: UInt64) -> String {
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
        return "curlew-form-" + hex16(high) + hex16(low)
    }

    /// `multipart/form-data; boundary=…`, the `Content-Type` of the body.
    public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// The number of parts.
    public var count: Int { parts.count }

    /// The exact length of the encoded body in bytes; nil when a part is a stream of unknown
    /// length (the body is then sent chunked).
    public var contentLength: Int64? {
        let delimiter = Int64(boundary.utf8.count) + 4  // "--" boundary CRLF
        var total = delimiter + 2  // closing "--" boundary "--" CRLF
        for part in parts {
            guard let length = part.length else { return nil }
            total += delimiter + Int64(part.headerBlock.count) + length + 2
        }
        return total
    }

    /// Whether the body will be a stream at the given threshold.
    func isStreamed(inMemoryThreshold: Int64 = defaultInMemoryThreshold) -> Bool {
        (contentLength ?? Int64.max) > inMemoryThreshold || parts.contains { if case .stream = $0.content { true } else { false } }
    }

    // MARK: Adding parts

    /// Adds a text field, sent as UTF-8 with no `Content-Type` (as browsers send fields).
    public mutating func append(_ text: String, withName name: String) throws(CurlewError) {
        let data = Data(text.utf8)
        try checkContent(data)
        parts.append(try MultipartPart(name: name, fileName: nil, mimeType: nil, content: .data(data), length: Int64(data.count)))
    }

    /// Adds bytes. With a file name and no MIME type, the type is inferred from the file
    /// name's extension; with neither, the part has no `Content-Type`.
    public mutating func append(
        _ data: Data, withName name: String, fileName: String? = nil, mimeType: String? = nil
    ) throws(CurlewError) {
        let type = mimeType ?? fileName.map(MIMEType.forFileName)
        try checkContent(data)
        parts.append(try MultipartPart(name: name, fileName: fileName, mimeType: type, content: .data(data), length: Int64(data.count)))
    }

    /// Adds a file, read as the body is sent. The file name defaults to the file's last path
    /// component and the MIME type to the one for its extension
    /// (`application/octet-stream` when unknown).
    ///
    /// The size is taken now; if the file changes size before it is sent, the upload fails
    /// with ``CurlewError/Kind/uploadFailed`` rather than send a body that does not match its
    /// length.
    ///
    /// - Throws: ``CurlewError/Kind/fileSystem`` when the file does not exist, is not a
    ///   regular file or is not readable.
    public mutating func append(
        fileAt fileURL: URL, withName name: String, fileName: String? = nil, mimeType: String? = nil
    ) throws(CurlewError) {
        let length = try MultipartFormData.regularFileSize(fileURL)
        let fileName = fileName ?? fileURL.lastPathComponent
        let type = mimeType ?? MIMEType.forFileName(fileName)
        parts.append(try MultipartPart(name: name, fileName: fileName, mimeType: type, content: .file(fileURL), length: length))
    }

    /// Adds a part whose content comes from a stream of chunks of exactly `length` bytes.
    ///
    /// `makeStream` is called each time the body is sent (a retry or a 307/308 redirect sends
    /// it again), so it must produce the same bytes each time. A stream that yields more or
    /// fewer than `length` bytes fails the upload with ``CurlewError/Kind/uploadFailed``.
    /// The MIME type defaults to the one for the file name's extension, or
    /// `application/octet-stream`.
    public mutating func append<Stream: AsyncSequence & Sendable>(
        length: Int64, withName name: String, fileName: String? = nil, mimeType: String? = nil,
        _ makeStream: @escaping @Sendable () -> Stream
    ) throws(CurlewError) where Stream.Element: Collection<UInt8> & Sendable {
        guard length >= 0 else {
            throw CurlewError(.invalidRequest, "the length of the multipart stream '\(name)' is negative")
        }
        let type = mimeType ?? fileName.map(MIMEType.forFileName) ?? MIMEType.fallback
        parts.append(
            try MultipartPart(
                name: name, fileName: fileName, mimeType: type, content: .stream({ ChunkSource(makeStream()) }),
                length: length))
    }

    /// Adds a part whose content comes from a stream of chunks of unknown length: the form is
    /// then sent as it is produced, chunked over HTTP/1.1 (`Transfer-Encoding: chunked`), with
    /// backpressure (the stream is not read ahead of the connection by more than a small
    /// buffer), and ``contentLength`` is nil.
    ///
    /// ```swift
    /// try form.append(withName: "log", fileName: "build.log") { logChunks() }  // AsyncSequence of Data
    /// ```
    ///
    /// `makeStream` is called each time the body is sent (a retry or a 307/308 redirect sends
    /// it again), so it must produce the same bytes each time. With a boundary the caller
    /// chose, content holding it fails the upload with ``CurlewError/Kind/invalidRequest``.
    /// The MIME type defaults to the one for the file name's extension, or
    /// `application/octet-stream`. A server that needs a `Content-Length` (some HTTP/1.0
    /// servers and proxies) cannot take such a form: give the length with
    /// ``append(length:withName:fileName:mimeType:_:)`` when it is known.
    public mutating func append<Stream: AsyncSequence & Sendable>(
        withName name: String, fileName: String? = nil, mimeType: String? = nil,
        _ makeStream: @escaping @Sendable () -> Stream
    ) throws(CurlewError) where Stream.Element: Collection<UInt8> & Sendable {
        let type = mimeType ?? fileName.map(MIMEType.forFileName) ?? MIMEType.fallback
        parts.append(
            try MultipartPart(
                name: name, fileName: fileName, mimeType: type, content: .stream({ ChunkSource(makeStream()) }),
                length: nil))
    }

    // MARK: Encoding

    /// The body: in memory at or below `inMemoryThreshold` bytes (unless a part is a stream),
    /// otherwise a replayable stream of exactly ``contentLength`` bytes (of unknown length,
    /// sent chunked, when ``contentLength`` is nil).
    ///
    /// - Throws: ``CurlewError/Kind/fileSystem`` or ``CurlewError/Kind/uploadFailed`` when a
    ///   file cannot be read or changed size, for in-memory encoding.
    func makeBody(inMemoryThreshold: Int64 = defaultInMemoryThreshold) throws(CurlewError) -> RequestBody {
        if isStreamed(inMemoryThreshold: inMemoryThreshold) {
            let sequence = bodySequence()
            return .stream(length: contentLength) { sequence }
        }
        return .data(try encodedData())
    }

    /// The streamed body, checked against the caller's boundary when there is one.
    func bodySequence() -> MultipartBodySequence {
        MultipartBodySequence(segments: segments(), guardedDelimiter: guardedDelimiter)
    }

    /// Sets the body (see `makeBody(inMemoryThreshold:)`) and the `Content-Type` with the
    /// boundary. The `Content-Type` is always set, since the body cannot be read without
    /// this boundary.
    func encode(into request: inout OutgoingRequest, inMemoryThreshold: Int64 = defaultInMemoryThreshold)
        throws(CurlewError)
    {
        do {
            request.body = try makeBody(inMemoryThreshold: inMemoryThreshold)
        } catch {
            throw error.adding(url: request.url)
        }
        request.headerFields[.contentType] = contentType
    }

    /// The whole body in memory, files included.
    ///
    /// - Throws: ``CurlewError/Kind/invalidRequest`` when a part is a stream (send it with
    ///   ``RequestBody/multipart(_:)``), ``CurlewError/Kind/fileSystem`` or
    ///   ``CurlewError/Kind/uploadFailed`` when a file cannot be read or changed size.
    public func encodedData() throws(CurlewError) -> Data {
        var data = Data()
        data.reserveCapacity(Int(clamping: contentLength ?? 0))
        for segment in segments() {
            switch segment {
            case .bytes(let bytes):
                data.append(bytes)
            case .file(let url, let length):
                let content = try MultipartFormData.readWholeFile(url, expectedLength: length)
                try checkContent(content)
                data.append(content)
            case .stream:
                throw CurlewError(
                    .invalidRequest, "a form with a stream part cannot be encoded in memory; use makeBody()")
            }
        }
        return data
    }

    /// The body as a sequence of segments, adjacent small byte runs merged.
    func segments() -> [MultipartBodySequence.Segment] {
        var segments: [MultipartBodySequence.Segment] = []
        var pending = Data()
        func flush() {
            if !pending.isEmpty { segments.append(.bytes(pending)); pending = Data() }
        }
        for part in parts {
            pending.append(contentsOf: "--\(boundary)\r\n".utf8)
            pending.append(part.headerBlock)
            switch part.content {
            case .data(let data) where data.count <= MultipartBodySequence.chunkSize:
                pending.append(data)
            case .data(let data):
                flush()
                segments.append(.bytes(data))
            case .file(let url):
                flush()
                segments.append(.file(url, length: part.length ?? 0))
            case .stream(let make):
                flush()
                segments.append(.stream(make, length: part.length))
            }
            pending.append(contentsOf: "\r\n".utf8)
        }
        pending.append(contentsOf: "--\(boundary)--\r\n".utf8)
        flush()
        return segments
    }

    // MARK: Files

    private static func regularFileSize(_ url: URL) throws(CurlewError) -> Int64 {
        guard url.isFileURL else {
            throw CurlewError(.fileSystem, "\(url.absoluteString) is not a file URL", url: url)
        }
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        } catch {
            throw CurlewError(.fileSystem, "cannot read the file \(url.path): \(error)", url: url, underlying: error)
        }
        guard (attributes[.type] as? FileAttributeType) == .typeRegular else {
            throw CurlewError(.fileSystem, "\(url.path) is not a regular file", url: url)
        }
        guard FileManager.default.isReadableFile(atPath: url.path) else {
            throw CurlewError(.fileSystem, "the file \(url.path) is not readable", url: url)
        }
        guard let size = (attributes[.size] as? NSNumber)?.int64Value else {
            throw CurlewError(.fileSystem, "cannot read the size of \(url.path)", url: url)
        }
        return size
    }

    private static func readWholeFile(_ url: URL, expectedLength: Int64) throws(CurlewError) -> Data {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw CurlewError(.fileSystem, "cannot read the file \(url.path): \(error)", url: url, underlying: error)
        }
        guard Int64(data.count) == expectedLength else {
            throw CurlewError(
                .uploadFailed,
                "the file \(url.path) changed size from \(expectedLength) to \(data.count) bytes after it was added",
                url: url)
        }
        return data
    }
}
