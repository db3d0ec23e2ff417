@testable import Curlew
import Foundation
import Testing
import TestServer

/// `RequestOptions.http2StreamWeight` (`CURLOPT_STREAM_WEIGHT`), read back from the HEADERS
/// frame's priority on the wire by ``H2PriorityServer`` (Python's `h2`).
@Suite(
    "HTTP/2 stream weight: the HEADERS frame's priority on the wire",
    .enabled(if: H2PriorityServer.isAvailable, "python3-h2 is not installed (scripts/install-deps.sh --tests)"))
struct HTTP2StreamWeightTests {
    private struct Report: Decodable {
        struct Priority: Decodable { let weight: Int; let dependsOn: Int; let exclusive: Bool }
        let path: String
        let priority: Priority?
    }

    private func session() -> Session {
        var configuration = SessionConfiguration()
        configuration.proxy = .direct
        configuration.httpVersion = .http2PriorKnowledge
        return Session(configuration: configuration)
    }

    private func weight(_ weight: Int?) -> RequestOptions {
        var options = RequestOptions()
        options.http2StreamWeight = weight
        return options
    }

    @Test func theWeightGoesInTheHeadersFrameAndNeverStaysOnThePooledHandle() async throws {
        let server = try await H2PriorityServer.start()
        let session = session()
        for (path, weight) in [("/w42", 42), ("/w256", 256), ("/w1", 1)] {
            let data = try await session.request(server.url(path), options: self.weight(weight)).validate().data()
            let report = try JSONDecoder().decode(Report.self, from: data)
            #expect(report.path == path)
            #expect(report.priority?.weight == weight, "\(String(decoding: data, as: UTF8.self))")
            #expect(report.priority?.dependsOn == 0)
        }
        // The same handle, reused: libcurl's default is back, and nghttp2 sends no priority for it.
        let plain = try JSONDecoder().decode(Report.self, from: try await session.request(server.url("/plain")).validate().data())
        #expect(plain.priority == nil || plain.priority?.weight == 16, "\(String(describing: plain.priority))")
        #expect(session.request(server.url("/w"), options: weight(42)).cURLDescription().contains("CURLOPT_STREAM_WEIGHT=42"))
        await session.shutdown()
        await server.stop()
    }

    @Test(arguments: [0, -1, 257, Int.max])
    func aWeightOutside1To256IsRefusedBeforeAnyConnection(_ bad: Int) async throws {
        let wire = try await WireServer.start()
        let session = session()
        do {
            _ = try await session.request(wire.url("/bad"), options: weight(bad)).data()
            Issue.record("the weight \(bad) was taken")
        } catch {
            #expect(error.kind == .invalidRequest, "\(error)")
            #expect(error.description.contains("1...256"), "\(error)")
        }
        await session.shutdown()
        await wire.shutdown()
    }
}
