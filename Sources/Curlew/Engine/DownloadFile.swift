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
final class DownloadFile {
    private let destination: URL
    private let temporaryPath: String
    private let options: DownloadOptions
    private var descriptor: Int32
    private var handedOver = false
    /// How many body bytes the file holds (a resumed file counts what it held before).
    private(set) var bytesOnDisk: Int64 = 0
    /// The response's `ETag`, else `Last-Modified`, when a partial file could be resumed.
    var validator: String?
    /// The whole body's length, when the response said it.
    var totalBytes: Int64?
    /// Set for a `416` that confirms the file is complete: its body is not the resource's.
    var ignoresBody = false

    init(destination: URL, options: DownloadOptions) throws(CurlewError) {
        self.destination = destination
        self.options = options
        let directory = destination.deletingLastPathComponent()
        if options.contains(.createIntermediateDirectories) {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw CurlewError(.fileSystem, "cannot create the directory \(directory.path): \(error.localizedDescription)")
            }
        }
        if !options.contains(.removePreviousFile), FileManager.default.fileExists(atPath: destination.path) {
            throw CurlewError(.fileSystem, "a file already exists at \(destination.path); pass .removePreviousFile to replace it")
        }
        var template = Array(directory.appendingPathComponent(".\(destination.lastPathComponent).curlew-XXXXXX").path.utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw CurlewError(.fileSystem, "cannot create a temporary file in \(directory.path): \(String(cString: strerror(errno)))")
        }
        self.descriptor = descriptor
        temporaryPath = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Continues the partial file at `path` (see ``DownloadResumeData``): appends after its
    /// `offset` bytes, or with `offset` 0 starts it again from empty.
    init(resuming path: String, at offset: Int64, destination: URL, options: DownloadOptions) throws(CurlewError) {
        self.destination = destination
        self.options = options
        temporaryPath = path
        if !options.contains(.removePreviousFile), FileManager.default.fileExists(atPath: destination.path) {
            throw CurlewError(.fileSystem, "a file already exists at \(destination.path); pass .removePreviousFile to replace it")
        }
        let descriptor = open(path, offset == 0 ? O_WRONLY | O_CREAT | O_TRUNC : O_WRONLY, 0o600)
        guard descriptor >= 0 else {
            throw CurlewError(.resumeFailed, "cannot open the partial file \(path): \(String(cString: strerror(errno)))")
        }
        self.descriptor = descriptor
        let size = lseek(descriptor, 0, SEEK_END)
        guard size == off_t(offset) else {
            close(descriptor)
            self.descriptor = -1
            handedOver = true  // The caller's file: left as it is.
            throw CurlewError(.resumeFailed, "the partial file \(path) holds \(size) bytes, not the \(offset) the resume data says")
        }
        bytesOnDisk = offset
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(CurlewError) {
        if ignoresBody { return }
        try DescriptorWriter.writeAll(descriptor, bytes, what: temporaryPath)
        bytesOnDisk += Int64(bytes.count)
    }

    /// Keeps the partial file for resume data instead of removing it, when it can be resumed:
    /// some bytes arrived and the response gave a validator. Otherwise removes it.
    func keepForResuming(request: OutgoingRequest) -> DownloadResumeData? {
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
