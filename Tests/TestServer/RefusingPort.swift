import Foundation
import Glibc
import Synchronization

/// Loopback ports that refuse every connection for the rest of the run: each is a socket bound
/// to `127.0.0.1` that never listens, so a connection attempt gets a reset at once
/// (`ECONNREFUSED`), and, as the socket stays bound, no server started later in the run (the
/// suite starts many, in parallel) can take the port over. A port picked free and then closed
/// had exactly that race.
public enum RefusingPort {
    private static let held = Mutex<[Int32]>([])

    /// A new port that refuses connections until the process exits.
    public static func make() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw TestServerError("socket() failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        let named = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard bound == 0, named == 0 else {
            let code = errno
            close(descriptor)
            throw TestServerError("binding a refusing port failed: errno \(code)")
        }
        held.withLock { $0.append(descriptor) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
