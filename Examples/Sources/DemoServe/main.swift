import DemoServer
import Foundation

// The demo server on its own, for command-line clients (scripts/demo.sh runs `curlew` against
// it): prints its base URL on one line, then serves until it is stopped (SIGTERM or Ctrl-C).
let server = try await DemoServer.start()
FileHandle.standardOutput.write(Data("http://127.0.0.1:\(server.port)\n".utf8))
while true {
    try await Task.sleep(for: .seconds(3600))
}
