import Foundation
import Synchronization
import TestServer

#if canImport(Glibc)
import Glibc
#endif

/// Watches a folder with inotify on a thread of its own, and looks at each file the moment it
/// is created, written or moved in: the modes it saw.
final class FolderWatcher: Sendable {
    private final class Shared: Sendable {
        let state = Mutex<(running: Bool, modes: [mode_t])>((true, []))
        let finished = Mutex<Bool>(false)
    }

    private let descriptor: Int32
    private let shared = Shared()

    init(_ directory: String) throws {
        let descriptor = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard descriptor >= 0,
            inotify_add_watch(descriptor, directory, UInt32(IN_CREATE | IN_MODIFY | IN_MOVED_TO | IN_CLOSE_WRITE)) >= 0
        else { throw TestServerError("inotify is not available: \(String(cString: strerror(errno)))") }
        self.descriptor = descriptor
        let shared = self.shared
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                // Once stopped, reads on until the queue is empty.
                guard poll(&poller, 1, 10) > 0 else {
                    if shared.state.withLock({ !$0.running }) { break }
                    continue
                }
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                var offset = 0
                while count > 0, offset + MemoryLayout<inotify_event>.size <= count {
                    let (length, name) = buffer.withUnsafeBytes { raw -> (Int, String) in
                        let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                        let start = offset + MemoryLayout<inotify_event>.size
                        let bytes = raw[start..<(start + Int(event.len))].prefix { $0 != 0 }
                        return (Int(event.len), String(decoding: bytes, as: UTF8.self))
                    }
                    offset += MemoryLayout<inotify_event>.size + length
                    var info = stat()
                    if !name.isEmpty, lstat(directory + "/" + name, &info) == 0 {
                        shared.state.withLock { $0.modes.append(info.st_mode) }
                    }
                }
            }
            shared.finished.withLock { $0 = true }
        }
        thread.start()
    }

    /// Stops watching once the events so far are read, and returns the modes seen.
    func stop() -> [mode_t] {
        shared.state.withLock { $0.running = false }
        while !shared.finished.withLock({ $0 }) { usleep(1000) }
        close(descriptor)
        return shared.state.withLock { $0.modes }
    }
}
