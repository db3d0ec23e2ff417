import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A download in progress: a temporary file beside the destination, moved into place
/// atomically on success and removed on failure, so no partial file is ever at the destination.
final class DownloadFile {
    private let destination: URL
    private let temporaryPath: String
    private let options: DownloadOptions
    private var descriptor: Int32

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

    func write(_ bytes: UnsafeRawBufferPointer) throws(CurlewError) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw CurlewError(.fileSystem, "writing \(temporaryPath) failed: \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }

    /// Moves the finished file into place and returns its URL.
    func commit() throws(CurlewError) -> URL {
        closeDescriptor()
        if !options.contains(.removePreviousFile), FileManager.default.fileExists(atPath: destination.path) {
            discard()
            throw CurlewError(.fileSystem, "a file appeared at \(destination.path) during the download")
        }
        guard rename(temporaryPath, destination.path) == 0 else {
            let reason = String(cString: strerror(errno))
            discard()
            throw CurlewError(.fileSystem, "cannot move the download to \(destination.path): \(reason)")
        }
        return destination
    }

    /// Removes the temporary file.
    func discard() {
        closeDescriptor()
        unlink(temporaryPath)
    }

    private func closeDescriptor() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
    }

    deinit { closeDescriptor() }
}
