import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

/// ``DownloadRequest``'s validation and cancellation: a rejected or cancelled download leaves
/// nothing at its destination, not even the temporary file beside it.
@Suite("Download validation and cancellation")
struct DownloadRequestTests {
    /// A fresh directory, removed by the caller.
    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-download-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private func contents(of directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    @Test func standardValidationRejectsStatusAndContentType() async throws {
        let server = try await Fixtures.server()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("file.bin")

        let status = await #expect(throws: CurlewError.self) {
            _ = try await Fixtures.session.download(server.url("/status/404"), to: .file(destination)).validate().fileURL()
        }
        #expect(status?.kind == .unacceptableStatus)
        #expect(status?.responseHead?.status.code == 404)
        #expect(try contents(of: directory) == [])

        let accepting: HTTPFields = [.accept: "application/json"]
        let type = await #expect(throws: CurlewError.self) {
            _ = try await Fixtures.session.download(server.url("/bytes/10"), headers: RequestHeaders(accepting), to: .file(destination))
                .validate().fileURL()
        }
        #expect(type?.kind == .unacceptableContentType)
        #expect(try contents(of: directory) == [])

        // Unvalidated, the same 404 is a download like any other.
        let file = try await Fixtures.session.download(server.url("/status/404"), to: .file(destination)).fileURL()
        #expect(file == destination)
        #expect(try contents(of: directory) == ["file.bin"])
    }

    @Test func statusCodeValidationAcceptsOnlyTheGivenCodes() async throws {
        let server = try await Fixtures.server()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }

        let teapot = directory.appendingPathComponent("teapot")
        let response = try await Fixtures.session.download(server.url("/status/418"), to: .file(teapot))
            .validate(statusCode: [418]).response
        #expect(response.head.status.code == 418)
        #expect(response.value == teapot)
        #expect(FileManager.default.fileExists(atPath: teapot.path))

        let ok = directory.appendingPathComponent("ok")
        let error = await #expect(throws: CurlewError.self) {
            _ = try await Fixtures.session.download(server.url("/bytes/10"), to: .file(ok)).validate(statusCode: [418]).fileURL()
        }
        #expect(error?.kind == .unacceptableStatus)
        #expect(error?.responseHead?.status.code == 200)
        #expect(try contents(of: directory) == ["teapot"])
    }

    @Test func aRetryAfterAFailedValidationWritesTheDestinationAfresh() async throws {
        let server = try await Fixtures.server()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("retried.json")
        let path = "/flaky/download-\(UUID().uuidString)"
        let session = Session(interceptors: [RetryPolicy(backoffScale: .milliseconds(1))])
        defer { Task { await session.shutdown() } }
        // The 503 body is written to the destination too; validation rejects it, and the retry
        // must find the destination free again.
        let file = try await session.download(server.url(path + "?failures=1"), to: .file(destination)).validate().response
        #expect(file.attempts == 2)
        #expect(file.value == destination)
        let body = try JSONSerialization.jsonObject(with: Data(contentsOf: destination)) as? [String: Any]
        #expect(body?["attempt"] as? Int == 2)
        #expect(try contents(of: directory) == ["retried.json"])
    }

    struct TooShort: Error, Equatable { let length: String? }

    @Test func customValidationSeesTheHeadButNoBody() async throws {
        let server = try await Fixtures.server()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let seen = Recorder<(String, Int, Bool)>()
        let validation: ResponseValidation = { request, head, body in
            seen.append((request.url.path, head.status.code, body == nil))
            let length = head.headerFields[.contentLength]
            if let length, Int(length) ?? 0 < 100 { throw TooShort(length: length) }
        }

        let long = try await Fixtures.session.download(server.url("/bytes/500"), to: .directory(directory))
            .validate(validation).fileURL()
        #expect(try Data(contentsOf: long).count == 500)

        let error = await #expect(throws: CurlewError.self) {
            _ = try await Fixtures.session.download(server.url("/bytes/50"), to: .file(directory.appendingPathComponent("short")))
                .validate(validation).fileURL()
        }
        #expect(error?.kind == .validationFailed)
        #expect(error?.underlying as? TooShort == TooShort(length: "50"))
        #expect(seen.all.map(\.0) == ["/bytes/500", "/bytes/50"])
        #expect(seen.all.allSatisfy { $0.1 == 200 && $0.2 }, "downloads validate the head only: the body is on disk")
        #expect(try contents(of: directory) == ["500"])
    }

    @Test func cancellingBeforeTheStartSendsNothing() async throws {
        let server = try await Fixtures.server()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = "/anything/cancelled-\(UUID().uuidString)"
        let download = Fixtures.session.download(server.url(path), to: .directory(directory))
        download.cancel()
        let error = await #expect(throws: CurlewError.self) { _ = try await download.fileURL() }
        #expect(error?.kind == .cancelled)
        #expect(error?.message.contains("download was cancelled") == true)
        // The pipeline never ran, so no attempt reached the server.
        #expect(server.requestCount(path: path) == 0)
        #expect(try contents(of: directory) == [])
        let again = await #expect(throws: CurlewError.self) { _ = try await download.response }
        #expect(again?.kind == .cancelled, "the outcome is kept")
    }

    @Test func cancellingMidBodyRemovesThePartialFile() async throws {
        let server = try await Fixtures.server()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = SessionConfiguration()
        configuration.progressInterval = .milliseconds(20)
        let session = Session(configuration: configuration)
        defer { Task { await session.shutdown() } }
        let destination = directory.appendingPathComponent("slow.bin")
        // 20 seconds of body: ending well before that shows the cancel stopped the transfer.
        let download = session.download(server.url("/drip?bytes=40000&duration=20000&chunks=200"), to: .file(destination))
        var received: Int64 = 0
        var partialFiles: [String] = []
        do {
            for try await event in download.events {
                guard case .downloadProgress(let progress) = event, progress.completedBytes > 0 else { continue }
                if received == 0 {
                    // Bytes arrived, so they are on disk in the temporary file beside the destination.
                    partialFiles = try contents(of: directory)
                    download.cancel()
                }
                received = progress.completedBytes
            }
            Issue.record("expected the cancelled download to fail")
        } catch let error as CurlewError {
            #expect(error.kind == .cancelled)
        }
        #expect(received > 0 && received < 40000)
        #expect(partialFiles.count == 1, "\(partialFiles)")
        #expect(partialFiles.allSatisfy { $0.hasPrefix(".slow.bin.curlew-") }, "a temporary file, not the destination: \(partialFiles)")
        #expect(try contents(of: directory) == [], "the partial file is removed")
    }
}
