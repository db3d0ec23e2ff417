import Curlew
import CurlewOpenAPI
import Foundation
import HTTPTypes
import Hummingbird
import OpenAPIRuntime

// A tiny server for the generated client to talk to: one item, and a streamed download.
let router = Router()
router.get("api/items/:id") { _, context -> Response in
    let id = context.parameters.get("id") ?? ""
    let (status, json) = id == "1"
        ? (HTTPResponse.Status.ok, #"{"id":"1","name":"One"}"#)
        : (.notFound, #"{"message":"no item \#(id)"}"#)
    return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: json)))
}
router.get("api/downloads") { request, _ -> Response in
    let size = Int(request.uri.queryParameters.get("size") ?? "") ?? 0
    let chunk = ByteBuffer(repeating: 0x2A, count: 64 * 1024)
    return Response(
        status: .ok, headers: [.contentType: "application/octet-stream", .contentLength: "\(size)"],
        body: ResponseBody { writer in
            var left = size
            while left > 0 {
                try await writer.write(chunk.getSlice(at: 0, length: min(left, chunk.readableBytes))!)
                left -= min(left, chunk.readableBytes)
            }
            try await writer.finish(nil)
        })
}
let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
let app = Application(
    router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
    onServerRunning: { portSink.yield($0.localAddress?.port ?? 0); portSink.finish() })
let server = Task { try await app.run() }
let port = await ports.first { _ in true } ?? 0

// The generated client, sending through a Curlew session with an adapter and retries.
let tagging = Interceptor.adapter { request, _ in
    var request = request
    request.headerFields[HTTPField.Name("X-Client")!] = "openapi-example"
    return request
}
let session = Session(interceptors: [tagging, RetryPolicy.default])
let client = Client(
    serverURL: URL(string: "http://127.0.0.1:\(port)/api")!, transport: CurlewTransport(session: session))

let item = try await client.getItem(path: .init(id: "1")).ok.body.json
print("item 1:", item.name)

switch try await client.getItem(path: .init(id: "2")) {
case .notFound(let notFound): print("item 2: not found (\(try notFound.body.json.message))")
case let other: print("item 2: unexpected \(other)")
}

let body = try await client.download(query: .init(size: 32 * 1024 * 1024)).ok.body.binary
var received = 0
for try await chunk in body { received += chunk.count }     // streamed, with backpressure
print("downloaded \(received) bytes")

await session.shutdown()
server.cancel()
