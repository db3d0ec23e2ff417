import Foundation
import Synchronization

/// The body of a request: bytes in memory, a file, a multipart form, an asynchronous sequence
/// of chunks, or a Foundation `InputStream`.
///
/// A file body and a form name their own `Content-Type` (``contentType``): a file's is
/// inferred from its extension, and the request carries it unless its headers set one; a
/// form's names its boundary and always replaces the request's, since the body cannot be read
/// without it.
///
/// `Data`, `String` and file bodies can be sent again (on a retry, a 307/308 redirect, or a
/// refused `Expect: 100-continue`). A stream body is sent once, unless it is built with a
/// factory that makes a fresh stream for each attempt; an attempt that would need a one-shot
/// stream a second time fails with ``CurlewError/Kind/bodyNotReplayable`` before it sends
/// anything, rather than send an empty or partial body.
public struct RequestBody: Sendable {
    enum Storage: Sendable {
        case data(Data)
        case file(URL)
        case stream(length: Int64?, replayable: Bool, make: @Sendable () throws(CurlewError) -> ChunkSource)
    }

    let storage: Storage

    /// The `Content-Type` the body implies: a file's, inferred from its extension
    /// (`application/octet-stream` when unknown), sent unless the request or the session's
    /// default headers name one; or a multipart form's with its boundary, which always replaces
    /// the request's. Nil for bytes, text and streams, which leave the type to the headers.
    public var contentType: String? {
        if case .file(let url) = storage { return MIMEType.forFileName(url.lastPathComponent) }
        return impliedContentType?.value
    }

    /// A form's `Content-Type`, set on the request with the body (``OutgoingRequest/body``).
    var impliedContentType: (value: String, replacesHeader: Bool)? = nil

    /// The body's length in bytes, when known. A body of unknown length is sent chunked.
    public var length: Int64? {
        switch storage {
        case .data(let data): return Int64(data.count)
        case .file(let url):
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
            return (attributes?[.size] as? NSNumber)?.int64Value
        case .stream(let length, _, _): return length
        }
    }

    /// Whether the body can be sent more than once.
    public var isReplayable: Bool {
        if case .stream(_, let replayable, _) = storage { return replayable }
        return true
    }

    /// A body of bytes in memory.
    public static func data(_ data: Data) -> RequestBody { RequestBody(storage: .data(data)) }

    /// A body of text, encoded as UTF-8.
    public static func string(_ string: String) -> RequestBody {
        RequestBody(storage: .data(Data(string.utf8)))
    }

    /// A body read from a file as it is sent; the file is never held in memory whole. Unless the
    /// request (or the session's default headers) names a `Content-Type`, it is sent with the type
    /// of the file's extension (from a built-in table). A file that cannot be opened fails
    /// the request with ``CurlewError/Kind/invalidRequest`` when it is consumed.
    public static func file(_ url: URL) -> RequestBody { RequestBody(storage: .file(url)) }

    /// A `multipart/form-data` body. Small forms are encoded in memory; large ones stream from
    /// their files and streams (above 10 MiB or with a stream part), so a
    /// 2 GiB file is never held in memory. The request's `Content-Type` becomes the form's, with
    /// its boundary. A part's file that cannot be read fails the request when it is consumed.
    public static func multipart(_ form: MultipartFormData) -> RequestBody {
        var body: RequestBody
        do {
            body = try form.makeBody()
        } catch {
            body = RequestBody(storage: .stream(length: nil, replayable: true) { () throws(CurlewError) in throw error })
        }
        body.impliedContentType = (form.contentType, true)
        return body
    }

    /// A one-shot body from an asynchronous sequence of byte chunks.
    ///
    /// The sequence is iterated as libcurl asks for data, with backpressure: it is not read
    /// ahead by more than a small buffer. With `length` nil the body is sent chunked.
    public static func stream<S: AsyncSequence & Sendable>(_ sequence: S, length: Int64? = nil)
        -> RequestBody where S.Element: Collection<UInt8> & Sendable
    {
        let once = OneShot("stream")
        return RequestBody(storage: .stream(length: length, replayable: false) { () throws(CurlewError) in
            try once.claim()
            return ChunkSource(sequence)
        })
    }

    /// A replayable body: `makeSequence` is called once per attempt.
    public static func stream<S: AsyncSequence & Sendable>(
        length: Int64? = nil, _ makeSequence: @escaping @Sendable () -> S
    ) -> RequestBody where S.Element: Collection<UInt8> & Sendable {
        RequestBody(storage: .stream(length: length, replayable: true) { ChunkSource(makeSequence()) })
    }

    /// A one-shot body read from a Foundation `InputStream`, for code arriving from
    /// URLSession. With `length` nil the body is sent chunked.
    ///
    /// The stream is opened if it is not open yet, read on a thread of its own (a read that
    /// blocks, on a pipe or a socket, holds neither the session's thread nor Swift's
    /// cooperative pool) with the same backpressure as ``stream(_:length:)``, and closed at
    /// its end. Hand the stream over: nothing else may read it afterwards.
    public static func inputStream(_ stream: InputStream, length: Int64? = nil) -> RequestBody {
        let handedOver = HandedOverInputStream(stream)
        let once = OneShot("input stream")
        return RequestBody(storage: .stream(length: length, replayable: false) { () throws(CurlewError) in
            try once.claim()
            return ChunkSource(reader: InputStreamReader(handedOver.stream))
        })
    }

    /// A replayable body from `InputStream`s: `makeStream` is called once per attempt and must
    /// return a new stream each time.
    public static func inputStream(length: Int64? = nil, _ makeStream: @escaping @Sendable () -> InputStream)
        -> RequestBody
    {
        RequestBody(storage: .stream(length: length, replayable: true) {
            ChunkSource(reader: InputStreamReader(makeStream()))
        })
    }
}

/// Lets a one-shot body be read once; a second reader gets a clear error instead of an
/// exhausted (empty) or half-read stream.
private final class OneShot: Sendable {
    private let claimed = Atomic(false)
    private let what: String

    init(_ what: String) { self.what = what }

    func claim() throws(CurlewError) {
        guard claimed.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else {
            throw CurlewError(
                .bodyNotReplayable,
                "the one-shot \(what) body was already read by an earlier attempt or request; build it with a factory to send it again")
        }
    }
}

/// An `InputStream` handed to a body at its creation; see ``RequestBody/inputStream(_:length:)``.
private final class HandedOverInputStream: @unchecked Sendable {
    // Safe: the stream is only read by the one reader that `RequestBody.claim` lets through.
    let stream: InputStream
    init(_ stream: InputStream) { self.stream = stream }
}

/// A type-erased asynchronous source of byte chunks.
struct ChunkSource: Sendable {
    let next: @Sendable () async throws -> [UInt8]?

    init<S: AsyncSequence & Sendable>(_ sequence: S) where S.Element: Collection<UInt8> & Sendable {
        let box = IteratorBox(sequence.makeAsyncIterator())
        next = { try await box.next().map(Array.init) }
    }

    init(reader: InputStreamReader) {
        next = { try await reader.next() }
    }
}

/// Holds an iterator that is only ever advanced by one task at a time (the upload pump).
private final class IteratorBox<Iterator: AsyncIteratorProtocol>: @unchecked Sendable {
    // Safe: the upload pump is the only caller and awaits each `next()` before the next one.
    var iterator: Iterator
    init(_ iterator: Iterator) { self.iterator = iterator }
    func next() async throws -> Iterator.Element? { try await iterator.next() }
}
