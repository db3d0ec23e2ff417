import Curlew
import DemoServer
import Foundation

/// A user, as the demo server returns it.
struct User: Decodable, Sendable {
    let id: Int
    let name: String
    let email: String
}

let server = try await DemoServer.start()
print("Curlew tour — an embedded server is listening on 127.0.0.1:\(server.port); no internet is used.\n")

try await withSession { session in
    // 1. Await a typed value.
    let user = try await session.request(server.url("/users/42")).validate().decode(User.self)
    print("1. Awaited JSON → User(id: \(user.id), name: \(user.name), email: \(user.email))\n")

    // 2. Download to a file with a live progress line.
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-tour")
    let download = session.download(
        server.url("/files/big.iso?size=\(24 << 20)&rate=\(12 << 20)"), to: .directory(directory, options: [.createIntermediateDirectories, .removePreviousFile]))
    print("2. Download with progress:")
    for try await event in download.events {
        switch event {
        case .downloadProgress(let progress):
            let percent = Int(progress.fractionCompleted * 100)
            let bar = String(repeating: "█", count: percent / 4).padding(toLength: 25, withPad: "·", startingAt: 0)
            let eta = progress.estimatedTimeRemaining.map { String(format: "%.1f s left", Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18) } ?? ""
            print("\r   \(bar) \(percent)%  \(progress.completedBytes >> 20)/\((progress.totalBytes ?? 0) >> 20) MiB  \(String(format: "%.1f", progress.bytesPerSecond / 1_048_576)) MiB/s  \(eta)   ", terminator: "")
            fflush(nil)
        case .completed(let done):
            print("\n   saved to \(done.fileURL?.path ?? "?") in \(done.metrics.total)\n")
        case .response, .uploadProgress, .suspended, .resumed, .wireTrace:
            break
        }
    }
    // The tour leaves nothing behind in the temporary folder.
    try? FileManager.default.removeItem(at: directory)

    // 3. Iterate the events of a request.
    print("3. The event stream of a POST:")
    let post = session.request(server.url("/echo"), method: .post, body: .string(#"{"hello":"curlew"}"#))
    for try await event in post.events {
        switch event {
        case .uploadProgress(let progress): print("   upload   \(progress.completedBytes) bytes")
        case .response(let head): print("   response \(head.status.code) \(head.status.reasonPhrase)")
        case .downloadProgress(let progress): print("   download \(progress.completedBytes) bytes")
        case .suspended, .resumed, .wireTrace: break
        case .completed(let done):
            print("   completed over \(done.metrics.httpVersion.rawValue): \(String(decoding: done.body ?? Data(), as: UTF8.self))\n")
        }
    }

    // 4. Stream a body with backpressure: memory stays bounded however large it is.
    print("4. Streaming chunks as they arrive:")
    var received = 0
    for try await chunk in session.request(server.url("/drip?count=4")).bytes {
        received += chunk.count
        print("   chunk of \(chunk.count) bytes (\(received) so far)")
    }

    // 5. Bad input gets a clear error, never a crash.
    print("\n5. Clear errors:")
    do {
        _ = try await session.request(server.url("/users/1"), headers: ["X-Bad": "a\r\nInjected: 1"]).data()
    } catch {
        print("   \(error)")
    }
    do {
        _ = try await session.request("http://127.0.0.1:1/").data()
    } catch {
        print("   \(error)")
    }

    // 6. Repeat any request with curl.
    print("\n6. As a curl command:\n   \(post.cURLDescription())")
}
try await server.shutdown()
