import Foundation
import TestServer

#if canImport(Glibc)
import Glibc
#endif

/// A fresh temporary directory for Unix sockets, removed by ``remove()``.
struct SocketDirectory {
    let url: URL

    init() throws {
        // Short, so that socket paths stay well inside sun_path's 108 bytes.
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("curlew-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    }

    /// The path of `name` in the directory.
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Runs `body` with a ``TestServer`` listening on a Unix socket in a temporary directory, and
/// removes the directory afterwards (also on errors).
func withUnixSocketServer<T: Sendable>(
    _ body: (TestServer, String) async throws -> T
) async throws -> T {
    let directory = try SocketDirectory()
    let path = directory.path("api.sock")
    let server: TestServer
    do {
        server = try await TestServer.start(unixSocketPath: path)
    } catch {
        directory.remove()
        throw error
    }
    do {
        let value = try await body(server, path)
        try? await server.shutdown()
        directory.remove()
        return value
    } catch {
        try? await server.shutdown()
        directory.remove()
        throw error
    }
}

/// Binds a Unix socket at `path` without listening on it, so that connecting is refused;
/// returns the descriptor to close.
func bindWithoutListening(_ path: String) throws -> Int32 {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw TestServerError("socket() failed") }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
        close(descriptor)
        throw TestServerError("path too long")
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        raw.copyBytes(from: bytes)
    }
    let result = withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    }
    guard result == 0 else {
        close(descriptor)
        throw TestServerError("bind() failed")
    }
    return descriptor
}
