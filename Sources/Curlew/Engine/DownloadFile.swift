import CCurlShims
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A download in progress, on the curl thread: a temporary file beside the destination,
/// removed on failure; on success it is handed to a ``PendingDownload``, which moves it into
/// place once the response is accepted, so no partial or rejected file is ever at the
/// destination.
///
/// The file is `.<destination name>.curlew-XXXXXX` in the destination's folder, created with
/// mode 0600 and its descriptor closed on `exec`. A partial file named by resume data is
/// opened only if it is that file: see ``init(resuming:holding:restarting:destination:options:)``.
final class DownloadFile {
    private let destination: URL
    private let temporaryPath: String
    private let options: DownloadOptions
    private var descriptor: Int32
    private var handedOver = false
    /// How many body bytes the file holds (a resumed file counts what it held before).
    private(set) var bytesOnDisk: Int64 = 0
    /// The bytes the file held when this attempt opened it.
    private var bytesBefore: Int64 = 0
    /// The most bytes the file may hold: for a resumed range, its end. A body that runs past it
    /// is refused, not written (``write(_:)``).
    var byteLimit = Int64.max
    /// The length the finished file must have, when known: a resumed file is checked against
    /// it at the end (``checkLength()``), since a range may stop short of it.
    var expectedLength: Int64?
    /// Set when a resumed range ended otherwise than its `Content-Range` said: the partial file
    /// is kept for another try, without anything past the range.
    private(set) var rangeEndedWrongly = false
    /// Set when the body ran past ``byteLimit``: this attempt's bytes are dropped before the
    /// partial file is kept, since the server's account of them did not hold.
    private var ranPastLimit = false
    /// The strong validator (``ResumeValidator``) a partial file could be resumed with.
    var validator: String?
    /// The whole body's length, when the response said it.
    var totalBytes: Int64?
    /// Set for a `416` that confirms the file is complete: its body is not the resource's.
    var ignoresBody = false

    /// The marker between the destination's name and the random part of a temporary file's name.
    private static let marker = ".curlew-"

    init(destination: URL, options: DownloadOptions) throws(CurlewError) {
        self.destination = destination
        self.options = options
        let directory = destination.deletingLastPathComponent()
        if options.contains(.createIntermediateDirectories) {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw CurlewError(
                    .fileSystem, "cannot create the directory \(directory.path): \(error.localizedDescription)",
                    underlying: error)
            }
        }
        try Self.checkDestinationFree(destination, options: options)
        let name = "." + destination.lastPathComponent + Self.marker + "XXXXXX"
        var template = Array(directory.appendingPathComponent(name).path.utf8CString)
        // Created with O_EXCL (never an existing file or link), mode 0600 and O_CLOEXEC.
        let descriptor = template.withUnsafeMutableBufferPointer { curlew_mkstemp_cloexec($0.baseAddress!) }
        guard descriptor >= 0 else {
            let failure = errno
            throw .fileSystem("cannot create a temporary file in \(directory.path)", code: failure)
        }
        self.descriptor = descriptor
        temporaryPath = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Continues the partial file at `path` — the one Curlew derives from the destination
    /// (``DownloadResumeData/partialFilePath(for:)``): appends after its `offset` bytes, or with
    /// `restarting` empties it first.
    ///
    /// Resume data may have been stored and edited, and the folder shared, so the file is opened
    /// without following a link (`O_NOFOLLOW`), without blocking on a FIFO, and used only if it
    /// is a regular file of this user's with no other name (a hard link would carry the writes
    /// elsewhere). Anything else fails before a byte is written or truncated, and leaves the
    /// file as it is.
    init(resuming path: String, holding offset: Int64, restarting: Bool, destination: URL, options: DownloadOptions)
        throws(CurlewError)
    {
        self.destination = destination
        self.options = options
        temporaryPath = path
        descriptor = -1
        handedOver = true  // The caller's file until it passes the checks: a failure leaves it alone.
        try Self.checkDestinationFree(destination, options: options)
        descriptor = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            throw CurlewError(.resumeFailed, "cannot open the partial file \(path): \(Self.openFailure(errno))")
        }
        if let problem = Self.unusablePartialFile(descriptor, holding: offset, restarting: restarting) {
            closeDescriptor()
            throw CurlewError(.resumeFailed, "cannot resume into the partial file \(path): \(problem)")
        }
        handedOver = false
        bytesOnDisk = restarting ? 0 : offset
        bytesBefore = bytesOnDisk
    }

    /// Why the open partial file cannot be continued, or nil once it is ready: positioned at
    /// its end, or emptied for `restarting`, and blocking again.
    private static func unusablePartialFile(_ descriptor: Int32, holding offset: Int64, restarting: Bool) -> String? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return String(cString: strerror(errno)) }
        if info.st_mode & S_IFMT != S_IFREG { return "it is not a regular file" }
        if info.st_uid != geteuid() { return "it is owned by another user" }
        if info.st_nlink != 1 { return "it has \(info.st_nlink) links, so writing to it would change a file elsewhere" }
        if !restarting && info.st_size != off_t(offset) {
            return "it holds \(info.st_size) bytes, not the \(offset) the resume data says"
        }
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) == 0,
            restarting ? ftruncate(descriptor, 0) == 0 : lseek(descriptor, 0, SEEK_END) >= 0
        else { return String(cString: strerror(errno)) }
        return nil
    }

    /// Why `open` refused a partial file, in words.
    private static func openFailure(_ code: Int32) -> String {
        switch code {
        case ELOOP: "it is a symbolic link, which Curlew does not follow"
        case ENXIO, EISDIR: "it is not a regular file"
        default: String(cString: strerror(code))
        }
    }

    /// Fails unless the destination is free or may be replaced. A link counts as a file there,
    /// even one whose target does not exist.
    private static func checkDestinationFree(_ destination: URL, options: DownloadOptions) throws(CurlewError) {
        if !options.contains(.removePreviousFile), hasEntry(at: destination.path) {
            throw CurlewError(
                .fileSystem, "a file already exists at \(destination.path); pass .removePreviousFile to replace it",
                underlying: POSIXError(.EEXIST))
        }
    }

    /// Whether anything — a file, a folder, a link even to nothing — has this path.
    static func hasEntry(at path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// Whether `name` is one Curlew gives temporary files: `.<destination name>.curlew-XXXXXX`,
    /// for `destinationName` when given, else for any.
    static func isTemporaryFileName(_ name: String, for destinationName: String? = nil) -> Bool {
        guard let named = self.destinationName(ofTemporaryFile: name) else { return false }
        return destinationName.map { $0 == named } ?? true
    }

    /// The destination name within a temporary file's name, `.<name>.curlew-XXXXXX`.
    static func destinationName(ofTemporaryFile name: String) -> String? {
        let bytes = Array(name.utf8)
        let marker = Array(Self.marker.utf8)
        let suffix = marker.count + 6
        guard bytes.count > suffix + 1, bytes[0] == UInt8(ascii: "."),
            Array(bytes[(bytes.count - suffix)..<(bytes.count - 6)]) == marker,
            bytes.suffix(6).allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) })
        else { return nil }
        return String(decoding: bytes[1..<(bytes.count - suffix)], as: UTF8.self)
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(CurlewError) {
        if ignoresBody { return }
        guard Int64(bytes.count) <= byteLimit - bytesOnDisk else {
            ranPastLimit = true
            rangeEndedWrongly = true
            throw CurlewError(
                .resumeFailed,
                "the server sent more bytes than its Content-Range announced (the range ends at byte \(byteLimit - 1)); none of them was kept")
        }
        try DescriptorWriter.writeAll(descriptor, bytes, what: temporaryPath)
        bytesOnDisk += Int64(bytes.count)
    }

    /// At the end of a transfer libcurl found complete: a file with a known length must have
    /// it. A resumed range that stopped short of the representation's end fails here, and its
    /// bytes (validated, and within its range) stay for another try.
    func checkLength() throws(CurlewError) {
        guard let expectedLength, bytesOnDisk != expectedLength, !ignoresBody else { return }
        rangeEndedWrongly = true
        throw CurlewError(
            .resumeFailed,
            "the resumed download ended with \(bytesOnDisk) of \(expectedLength) bytes: the server's range stopped short")
    }

    /// Keeps the partial file for resume data instead of removing it, when it can be resumed:
    /// some bytes arrived and the response gave a validator. Otherwise removes it. A body that
    /// ran past its range first loses everything this attempt wrote.
    func keepForResuming(request: OutgoingRequest) -> DownloadResumeData? {
        if ranPastLimit, !handedOver {
            guard ftruncate(descriptor, off_t(bytesBefore)) == 0 else {
                discard()
                return nil
            }
            bytesOnDisk = bytesBefore
        }
        guard let validator, bytesOnDisk > 0, !ignoresBody, !handedOver else {
            discard()
            return nil
        }
        closeDescriptor()
        handedOver = true
        return DownloadResumeData(
            request: request, validator: validator, bytesOnDisk: bytesOnDisk, totalBytes: totalBytes,
            partialPath: temporaryPath)
    }

    /// Ends the writing: the file, still beside the destination under its temporary name, now
    /// belongs to the returned ``PendingDownload``, which moves it into place or removes it.
    func finishWriting() -> PendingDownload {
        closeDescriptor()
        handedOver = true
        return PendingDownload(temporaryPath: temporaryPath, destination: destination, options: options)
    }

    /// Removes the temporary file, unless ``finishWriting()`` handed it over.
    func discard() {
        closeDescriptor()
        if !handedOver { unlink(temporaryPath) }
    }

    private func closeDescriptor() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
    }

    deinit { closeDescriptor() }
}
