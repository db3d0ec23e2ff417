import Glibc
import Synchronization

/// A TCP listener on `127.0.0.1` that never accepts, with its accept queue already full, so
/// that new connection attempts to it hang instead of being refused: Linux drops a SYN when
/// the listener's accept queue is full, and the client keeps retransmitting until its connect
/// timeout. For testing connect timeouts on loopback.
///
/// The listener uses backlog 0 (a queue of one); the initializer fills it with its own client
/// connections.
public final class UnacceptingListener: Sendable {
    /// The port that does not accept connections.
    public let port: Int

    /// The listening socket followed by the filler connections; emptied by ``close()``.
    private let descriptors: Mutex<[Int32]>

    /// Opens the listener and fills its queue. Throws ``TestServerError`` if a socket call fails.
    public init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw TestServerError("socket() failed: errno \(errno)") }
        var all = [listener]
        func fail(_ what: String) -> TestServerError {
            let error = TestServerError("\(what) failed: errno \(errno)")
            for descriptor in all { _ = Glibc.close(descriptor) }
            return error
        }
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw fail("bind(127.0.0.1:0)") }
        guard listen(listener, 0) == 0 else { throw fail("listen") }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &actual) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getsockname(listener, $0, &length)
            }
        }
        guard named == 0 else { throw fail("getsockname") }
        let port = Int(UInt16(bigEndian: actual.sin_port))

        // Fill the queue: the first connection completes and sits unaccepted; the next ones'
        // SYNs are dropped, which is exactly what later clients will experience.
        var target = Self.loopback(port: UInt16(port))
        for _ in 0..<3 {
            let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard client >= 0 else { throw fail("socket() for a filler connection") }
            all.append(client)
            let result = withUnsafePointer(to: &target) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard result == 0 || errno == EINPROGRESS else { throw fail("connect() for a filler connection") }
        }
        // Give the first filler time to finish its handshake, so the queue is full on return.
        var first = pollfd(fd: all[1], events: Int16(POLLOUT), revents: 0)
        _ = poll(&first, 1, 1000)

        self.port = port
        self.descriptors = Mutex(all)
    }

    deinit {
        close()
    }

    /// Closes the listener and its filler connections. Calling it again does nothing.
    public func close() {
        let open = descriptors.withLock { descriptors in
            defer { descriptors.removeAll() }
            return descriptors
        }
        for descriptor in open {
            _ = Glibc.close(descriptor)
        }
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        return address
    }
}
