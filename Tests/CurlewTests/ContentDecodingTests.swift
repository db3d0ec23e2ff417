import Curlew
import Foundation
import Testing
import TestServer

/// Curlew decodes content codings itself and fails a coded stream that never reached its end,
/// which libcurl 7.88 (and `curl --compressed`) would hand over as a complete body.
@Suite("Content decoding: complete, truncated and corrupt coded bodies")
struct ContentDecodingTests {
    let session = Fixtures.session
    static let codings = ["gzip", "deflate", "raw-deflate", "br", "zstd"]

    private func expectMalformed(_ request: DataRequest, mentioning text: String) async {
        do {
            let data = try await request.data()
            Issue.record("expected malformedResponse, got \(data.count) bytes")
        } catch {
            #expect(error.kind == .malformedResponse)
            #expect(error.description.contains(text), "\(error.description)")
        }
    }

    @Test(arguments: codings)
    func completeBodyDecodesExactly(_ coding: String) async throws {
        let server = try await Fixtures.server()
        let size = 300_000
        let data = try await session.request(server.url("/coded?coding=\(coding)&size=\(size)")).data()
        #expect(data == CodedBodyRoutes.plainBody(size: size))
    }

    @Test(arguments: codings)
    func truncatedCodedStreamFails(_ coding: String) async throws {
        let server = try await Fixtures.server()
        // The HTTP message is whole (a correct Content-Length); only the coded stream is cut.
        await expectMalformed(
            session.request(server.url("/coded?coding=\(coding)&size=100000&cut=16")), mentioning: "truncated")
    }

    @Test(arguments: codings)
    func truncatedChunkedCodedStreamFails(_ coding: String) async throws {
        let server = try await Fixtures.server()
        await expectMalformed(
            session.request(server.url("/coded?coding=\(coding)&size=5000&cut=3&chunked=1")), mentioning: "truncated")
    }

    @Test func oneByteShortIsEnough() async throws {
        let server = try await Fixtures.server()
        // gzip's last 8 bytes are its CRC-32 and length: a stream short by one byte of them
        // decodes every byte of the text, and is still incomplete.
        await expectMalformed(session.request(server.url("/coded?coding=gzip&size=1000&cut=1")), mentioning: "truncated")
        let whole = try await session.request(server.url("/coded?coding=gzip&size=1000&cut=0")).data()
        #expect(whole.count == 1000)
    }

    @Test func garbageAfterAValidGzipHeaderFails() async throws {
        let server = try await Fixtures.server()
        await expectMalformed(
            session.request(server.url("/coded?coding=gzip&size=20000&corrupt=after-header")), mentioning: "corrupt")
    }

    @Test func garbageAfterACompleteGzipStreamIsIgnored() async throws {
        // As curl and browsers do: the coded stream is complete, so the body is whole.
        let server = try await Fixtures.server()
        let data = try await session.request(server.url("/coded?coding=gzip&size=4000&trailing=junk")).data()
        #expect(data == CodedBodyRoutes.plainBody(size: 4000))
    }

    @Test func unknownCodingFails() async throws {
        let server = try await Fixtures.server()
        await expectMalformed(
            session.request(server.url("/response-headers?Content-Encoding=x-unheard-of")), mentioning: "x-unheard-of")
    }

    @Test func headOfACodedResourceHasNoBodyToCheck() async throws {
        let server = try await Fixtures.server()
        let response = try await session.request(server.url("/coded?coding=gzip&size=1000"), method: .head).response
        #expect(response.head.status.code == 200)
        #expect(response.value.isEmpty)
    }

    @Test func truncatedGzipFailsAByteStreamAtItsEnd() async throws {
        let server = try await Fixtures.server()
        var received = 0
        do {
            for try await chunk in session.request(server.url("/coded?coding=gzip&size=2000000&cut=10")).bytes {
                received += chunk.count
            }
            Issue.record("expected malformedResponse after \(received) bytes")
        } catch {
            #expect((error as? CurlewError)?.kind == .malformedResponse)
        }
    }

    @Test func largeCodedStreamKeepsEveryByte() async throws {
        // Bigger than the stream buffer, so the transfer pauses and resumes while coded.
        let server = try await Fixtures.server()
        let size = 6 << 20
        var received = Data()
        for try await chunk in session.request(server.url("/coded?coding=br&size=\(size)")).bytes {
            received.append(chunk)
            if received.count % (1 << 20) < chunk.count { try await Task.sleep(for: .milliseconds(5)) }
        }
        #expect(received == CodedBodyRoutes.plainBody(size: size))
    }

    @Test func truncatedGzipDownloadLeavesNoFile() async throws {
        let server = try await Fixtures.server()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-coded-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("body.txt")
        do {
            _ = try await session.download(server.url("/coded?coding=gzip&size=500000&cut=40"), to: .file(destination))
                .fileURL()
            Issue.record("expected malformedResponse")
        } catch {
            #expect(error.kind == .malformedResponse)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        let complete = try await session.download(server.url("/coded?coding=zstd&size=500000"), to: .file(destination))
            .fileURL()
        #expect(try Data(contentsOf: complete) == CodedBodyRoutes.plainBody(size: 500_000))
    }

    @Test func decompressionRatioIsCheckedOnDecodedBytes() async throws {
        let server = try await Fixtures.server()
        var configuration = SessionConfiguration()
        configuration.decompressionLimit = DecompressionLimit(ratio: 2, minimumSize: 1000)
        let strict = Session(configuration: configuration)
        defer { Task { await strict.shutdown() } }
        do {
            _ = try await strict.request(server.url("/coded?coding=gzip&size=200000")).data()
            Issue.record("expected decompressionBomb")
        } catch {
            #expect(error.kind == .decompressionBomb)
        }
    }
}
