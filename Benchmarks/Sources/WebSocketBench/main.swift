import BenchSupport
import Curlew
import Foundation

/// `websocket-bench --url ws://HOST:PORT/echo [--connections N] [--rounds R] [--compression on|off]`
///
/// Each round opens N WebSockets at once on one fresh `Session`, sends one 32-byte text
/// message on each and waits for its echo, with all N open at the same time. It prints one
/// JSON object per round: the resident memory before the round and with all N open and echoed
/// (KiB; the difference divided by N is the memory per connection), the peak resident memory,
/// the open descriptors, the wall time and CPU time from the first open to the last echo, and
/// how many connections failed. Only a process's first round measures memory: later rounds
/// reuse what malloc kept from the one before (`scripts/websocket.sh` runs one round per
/// process). With `--compression on` (the default, as in `WebSocketOptions`)
/// Curlew offers permessage-deflate, and a server that accepts it (Python's `websockets` does)
/// costs each connection its zlib streams.
struct RoundResult: Codable {
    let round: Int
    let compression: Bool
    let connections: Int
    let failed: Int
    let residentBeforeKiB: Int
    let residentOpenKiB: Int
    let peakResidentKiB: Int
    let kibPerConnection: Double
    let openDescriptors: Int
    let descriptorsPerConnection: Double
    let seconds: Double
    let cpuSeconds: Double
}

func openDescriptorCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
}

/// Opens one socket, echoes one message; the socket stays open until `release` is awaited.
func echoOnce(_ session: Session, url: String, index: Int, options: WebSocketOptions) async throws -> WebSocket {
    let socket = try await session.webSocket(url, options: options)
    let text = "message \(index) " + String(repeating: "x", count: 32 - "message \(index) ".count)
    try await socket.send(text: text)
    var iterator = socket.messages.makeAsyncIterator()
    guard case .text(let echoed) = try await iterator.next(), echoed == text else {
        throw CurlewError(.webSocketClosed, "echo \(index) did not match", url: URL(string: url))
    }
    return socket
}

func runRound(_ round: Int, url: String, connections: Int, options: WebSocketOptions) async -> RoundResult {
    let session = Session()
    // One connection first, so that the session's loop, libcurl and TLS are initialised and
    // only what each further connection costs is counted.
    if let warm = try? await echoOnce(session, url: url, index: -1, options: options) { await warm.close() }
    let before = ProcessMetrics.residentKiB()
    let descriptorsBefore = openDescriptorCount()
    let cpuBefore = ProcessMetrics.cpuSeconds()
    let start = ContinuousClock.now
    let results = await withTaskGroup(of: WebSocket?.self, returning: [WebSocket?].self) { group in
        for index in 0..<connections {
            group.addTask { try? await echoOnce(session, url: url, index: index, options: options) }
        }
        var sockets: [WebSocket?] = []
        for await socket in group { sockets.append(socket) }
        return sockets
    }
    let elapsed = ContinuousClock.now - start
    let cpu = ProcessMetrics.cpuSeconds() - cpuBefore
    let open = ProcessMetrics.residentKiB()
    let descriptors = openDescriptorCount() - descriptorsBefore
    let sockets = results.compactMap { $0 }
    await withTaskGroup(of: Void.self) { group in
        for socket in sockets { group.addTask { await socket.close() } }
    }
    await session.shutdown()
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return RoundResult(
        round: round, compression: options.compression != nil, connections: connections, failed: connections - sockets.count, residentBeforeKiB: before,
        residentOpenKiB: open, peakResidentKiB: ProcessMetrics.peakResidentKiB(),
        kibPerConnection: Double(open - before) / Double(connections), openDescriptors: descriptors,
        descriptorsPerConnection: Double(descriptors) / Double(connections), seconds: seconds, cpuSeconds: cpu)
}

var values: [String: String] = [:]
var arguments = CommandLine.arguments.dropFirst()
while let key = arguments.popFirst() {
    guard key.hasPrefix("--"), let value = arguments.popFirst() else {
        FileHandle.standardError.write(Data("usage: websocket-bench --url ws://HOST:PORT/echo [--connections N] [--rounds R] [--compression on|off]\n".utf8))
        exit(64)
    }
    values[String(key.dropFirst(2))] = value
}
guard let url = values["url"], let connections = Int(values["connections"] ?? "1000"), connections > 0,
    let rounds = Int(values["rounds"] ?? "5"), rounds > 0, ["on", "off"].contains(values["compression"] ?? "on")
else {
    FileHandle.standardError.write(Data("websocket-bench: --url is required; --connections and --rounds are positive; --compression is on or off\n".utf8))
    exit(64)
}
var options = WebSocketOptions()
if values["compression"] == "off" { options.compression = nil }
let encoder = JSONEncoder()
encoder.outputFormatting = [.sortedKeys]
for round in 1...rounds {
    let result = await runRound(round, url: url, connections: connections, options: options)
    if let line = try? encoder.encode(result) { FileHandle.standardOutput.write(line + Data("\n".utf8)) }
}
