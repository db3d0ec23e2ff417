import Foundation

/// A file opened for writing with plain `write(2)` calls, for the download-file scenario of
/// clients whose API hands over chunks rather than writing files itself.
public final class OutputFile: Sendable {
    private let descriptor: Int32
    private let path: String

    /// Creates or truncates the file.
    public init(path: String) throws {
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        self.path = path
        guard descriptor >= 0 else { throw BenchFailure("cannot create \(path)") }
    }

    /// Writes every byte of `bytes`.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard let base = bytes.baseAddress else { return }
        var done = 0
        while done < bytes.count {
            let written = Foundation.write(descriptor, base + done, bytes.count - done)
            guard written > 0 else { throw BenchFailure("write to \(path) failed (errno \(errno))") }
            done += written
        }
    }

    /// Closes the file.
    public func close() { _ = Foundation.close(descriptor) }
}
