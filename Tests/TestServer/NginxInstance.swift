import Foundation
import Synchronization

/// A running nginx and its prefix directory, for ``NginxServer`` and ``TrustTestBed``: started
/// on free loopback ports (again on others when one was taken meanwhile), stopped once with
/// SIGKILL, its directory removed. One that is never stopped is killed with its owner.
final class NginxInstance: Sendable {
    let prefixDirectory: URL
    /// The ports nginx listens on, as the configuration was given them.
    let ports: [Int]
    private let process: Mutex<NginxProcess?>

    private init(prefixDirectory: URL, ports: [Int], process: NginxProcess) {
        self.prefixDirectory = prefixDirectory
        self.ports = ports
        self.process = Mutex(process)
    }

    deinit {
        let running = process.withLock { $0 }
        if let running {
            running.cutLifeline()
            try? FileManager.default.removeItem(at: prefixDirectory)
        }
    }

    /// Starts nginx in `prefix` with the configuration `text(ports)` for `portCount` distinct
    /// free ports, trying new ports up to five times when nginx finds one taken.
    static func start(prefix: URL, portCount: Int, text: ([Int]) throws -> String) async throws -> NginxInstance {
        var lastError: (any Error)?
        for _ in 0..<5 {
            var ports: [Int] = []
            while ports.count < portCount {
                let port = try NginxServer.freeLoopbackPort()
                if !ports.contains(port) { ports.append(port) }
            }
            do {
                let process = try await NginxServer.launch(text: try text(ports), prefix: prefix, ports: ports)
                return NginxInstance(prefixDirectory: prefix, ports: ports, process: process)
            } catch let error as TestServerError where error.description.contains("Address already in use") {
                lastError = error
            }
        }
        throw lastError ?? TestServerError("nginx did not start")
    }

    /// Stops nginx and removes the prefix directory. Calling it again does nothing.
    func stop() async {
        let running = process.withLock { process in
            defer { process = nil }
            return process
        }
        guard let running else { return }
        await running.kill()
        try? FileManager.default.removeItem(at: prefixDirectory)
    }
}
