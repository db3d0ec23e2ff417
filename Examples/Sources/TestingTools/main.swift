import Curlew
import CurlewTesting
import DemoServer
import Foundation

// The testing tools of `CurlewTesting`, in one run (`swift run TestingTools`), with no internet:
// 1. stubs answer a session's requests without a socket, and say what was sent;
// 2. a HARCassette records exchanges with the embedded demo server into a HAR file;
// 3. a second cassette replays that file with the server gone.

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-testing-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

print("1. Stubs: a 503, retried, then a 200; nothing leaves the process.")
let stubs = HTTPStubs()
let items = stubs.register(.get, "https://api.example.com/items", .status(503), .json(#"[{"id":1},{"id":2}]"#))
let stubbed = Session(configuration: .stubbed(by: stubs), interceptors: [RetryPolicy(backoffScale: .milliseconds(10))])
let body = try await stubbed.request("https://api.example.com/items", headers: ["X-Trace": "demo"]).validate().string()
print("   body: \(body)")
print("   the stub answered \(stubs.matchCount(of: items)) times; first request sent:")
for line in stubs.receivedRequests.first?.headerLines ?? [] { print("     \(line)") }
await stubbed.shutdown()

print("2. Record against the demo server into a HAR file.")
let server = try await DemoServer.start()
let file = folder.appendingPathComponent("demo.har")
let recording = try HARCassette(file: file)
let recorded = try await recording.session.request(server.url("/json")).validate().string()
try await recording.finish()
try await server.shutdown()
let archive = try HARArchive(contentsOf: file)
print("   \(archive.log.entries.count) entry written to \(file.lastPathComponent); the server is stopped now.")

print("3. Replay from the file.")
let replay = try HARCassette(file: file)
let replayed = try await replay.session.request(server.url("/json")).validate().string()
try await replay.finish()
print("   replayed the same body: \(replayed == recorded)")
