// Events and progress; streaming bodies with backpressure.
// snippet.hide
import Curlew
import Foundation

struct LogEntry: Decodable, Sendable { let message: String }
let url = URL(string: "https://example.com/big.iso")!
let dir = URL(fileURLWithPath: "/tmp/downloads")
let session = Session()

// snippet.show
// snippet.events
for try await event in session.download(url, to: .directory(dir)).events {
    switch event {
    case .uploadProgress(let p), .downloadProgress(let p):
        print(p.fractionCompleted, p.bytesPerSecond, p.estimatedTimeRemaining ?? .zero)
    case .response(let head): print(head.status)
    case .suspended, .resumed: print(event)
    case .completed(let done): print(done.fileURL?.path ?? "", done.metrics.total)
    case .wireTrace(let record): print(record)  // only when the request is traced (WireTrace)
    }
}
// snippet.end

// snippet.suspend
let download = session.download(url, to: .directory(dir))
download.suspend()        // before the start: it starts only once resumed
download.resume()
// snippet.end

// snippet.bytes
var received = 0
for try await chunk in session.request(url).validate().bytes {
    received += chunk.count          // while this loop is slow, libcurl is paused
}
// snippet.end

// snippet.decoders
for try await entry in session.request(url).decodeStream(LogEntry.self, framing: .jsonLines) { print(entry) }
for try await line in session.request(url).lines { print(line) }
for try await event in session.request(url).serverSentEvents { print(event.event, event.data) }
// snippet.end

// snippet.hide
print(received)
await session.shutdown()
