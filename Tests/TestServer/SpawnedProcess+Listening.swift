import Foundation
import Glibc

extension SpawnedProcess {
    /// Starts a server program on a free loopback port and waits until it accepts connections:
    /// `launch` starts it listening on the port it is given. A port chosen free may be taken
    /// before the program binds it, so up to five ports are tried; `name` is for errors.
    static func startListening(
        _ name: String, _ launch: (_ port: Int) throws -> SpawnedProcess
    ) async throws -> (port: Int, process: SpawnedProcess) {
        var lastError: (any Error)?
        for _ in 0..<5 {
            do {
                let port = try NginxServer.freeLoopbackPort()
                let process = try launch(port)
                for _ in 0..<250 {
                    if !process.isRunning { break }
                    if NginxServer.canConnect(port: port) { return (port, process) }
                    try await Task.sleep(for: .milliseconds(20))
                }
                process.send(SIGKILL)
                _ = await process.waitForExit()
                lastError = TestServerError("\(name) did not listen on port \(port)")
            } catch {
                lastError = error
            }
        }
        throw lastError ?? TestServerError("\(name) did not start")
    }
}
