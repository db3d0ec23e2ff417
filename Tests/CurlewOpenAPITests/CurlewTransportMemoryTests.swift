import Curlew
import CurlewOpenAPI
import Foundation
import OpenAPIRuntime
import TestServer
import Testing

/// "Memory" in the name: scripts/test.sh runs it alone, so other tests' allocations do not count.
@Suite struct CurlewTransportMemoryTests {
    /// 256 MiB through the generated client's `HTTPBody`: resident memory grows by a small
    /// fraction of it, since the transfer pauses while the body is not read.
    @Test func largeDownloadThroughAGeneratedClientStaysInBoundedMemory() async throws {
        try await OpenAPITestServer.run { server in
            let session = Session()
            let client = Client(serverURL: server.serverURL, transport: CurlewTransport(session: session))
            // A first, small download maps in the code and buffers every layer uses once: the
            // bound below is for what the large one holds, not for what the first one loads
            // (five runs each: 18–42 MiB of growth without it, 13–29 MiB with it).
            var warmUp: Int64 = 0
            for try await chunk in try await client.download(query: .init(size: 8 * 1024 * 1024)).ok.body.binary {
                warmUp += Int64(chunk.count)
            }
            #expect(warmUp == 8 * 1024 * 1024)
            let size: Int64 = 256 * 1024 * 1024
            let before = try ResidentMemory.bytes()
            var peak = before
            var received: Int64 = 0
            let body = try await client.download(query: .init(size: size)).ok.body.binary
            for try await chunk in body {
                received += Int64(chunk.count)
                if received % (8 * 1024 * 1024) < Int64(chunk.count) { peak = max(peak, try ResidentMemory.bytes()) }
            }
            peak = max(peak, try ResidentMemory.bytes())
            await session.shutdown()
            #expect(received == size)
            #expect(peak - before < 64 * 1024 * 1024, "resident memory grew by \(peak - before) bytes")
        }
    }
}
