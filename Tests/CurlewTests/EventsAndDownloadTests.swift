import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

@Suite("Events and downloads")
struct EventsAndDownloadTests {
    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func eventsReportHeadProgressAndCompletion() async throws {
        let server = try await Fixtures.server()
        var configuration = SessionConfiguration()
        configuration.progressInterval = .milliseconds(50)
        let session = Session(configuration: configuration)
        var progress: [TransferProgress] = []
        var head: HTTPResponse?
        var completion: TransferCompletion?
        for try await event in session.request(server.url("/drip?bytes=20000&duration=600&chunks=10")).events {
            switch event {
            case .response(let value): head = value
            case .downloadProgress(let value): progress.append(value)
            case .uploadProgress, .suspended, .resumed, .wireTrace: break
            case .completed(let value): completion = value
            }
        }
        #expect(head?.status == .ok)
        #expect(completion?.body?.count == 20000)
        #expect(progress.count >= 3)
        #expect(progress.count < 40, "progress must be throttled")
        #expect(progress.last?.completedBytes == 20000)
        #expect(progress.last?.fractionCompleted == 1)
        #expect(zip(progress, progress.dropFirst()).allSatisfy { $0.completedBytes <= $1.completedBytes })
        await session.shutdown()
    }

    @Test func uploadProgressEndsAtTheFullSize() async throws {
        let server = try await Fixtures.server()
        let body = Data(repeating: 7, count: 3 << 20)
        var last: TransferProgress?
        for try await event in Fixtures.session.request(server.url("/upload"), method: .post, body: .data(body)).events {
            if case .uploadProgress(let value) = event { last = value }
        }
        #expect(last?.completedBytes == Int64(body.count))
        #expect(last?.fractionCompleted == 1)
    }

    @Test func downloadToFileWithProgress() async throws {
        let server = try await Fixtures.server()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("nested/dir/file.bin")
        let download = Fixtures.session.download(
            server.url("/bytes/3000000"), to: .file(destination, options: [.createIntermediateDirectories]))
        var sawProgress = false
        var file: URL?
        for try await event in download.events {
            if case .downloadProgress = event { sawProgress = true }
            if case .completed(let done) = event { file = done.fileURL }
        }
        #expect(sawProgress)
        #expect(file == destination)
        #expect(try Data(contentsOf: destination) == Data(TestServer.expectedBytes(count: 3_000_000)))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: destination.deletingLastPathComponent().path)
        #expect(leftovers == ["file.bin"])
    }

    @Test func downloadToDirectoryUsesTheSuggestedName() async throws {
        let server = try await Fixtures.server()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let disposition = "attachment; filename=\"report.csv\""
        let url = server.url("/response-headers?Content-Disposition=\(disposition.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
        let file = try await Fixtures.session.download(url, to: .directory(directory)).fileURL()
        #expect(file.lastPathComponent == "report.csv")
        let custom = try await Fixtures.session.download(
            server.url("/bytes/10"), to: .custom { name, head in directory.appendingPathComponent("custom-\(head.status.code)-\(name)") }
        ).fileURL()
        #expect(custom.lastPathComponent == "custom-200-10")
    }

    @Test func failedDownloadLeavesNoFileAndExistingFileIsProtected() async throws {
        let server = try await Fixtures.server()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("partial.bin")
        do {
            _ = try await Fixtures.session.download(server.url("/fault/close-mid-body?length=100000&send=5000"), to: .file(destination)).fileURL()
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .connectionClosedMidBody)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)

        try Data("old".utf8).write(to: destination)
        do {
            _ = try await Fixtures.session.download(server.url("/bytes/10"), to: .file(destination)).fileURL()
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .fileSystem)
        }
        #expect(try Data(contentsOf: destination) == Data("old".utf8))
        _ = try await Fixtures.session.download(server.url("/bytes/10"), to: .file(destination, options: [.removePreviousFile])).fileURL()
        #expect(try Data(contentsOf: destination).count == 10)
    }

    @Test func cURLDescriptionRepeatsTheRequestInAShell() async throws {
        let server = try await Fixtures.server()
        let request = Fixtures.session.request(
            server.url("/anything?q=it's"), method: .post, headers: ["X-Quote": "a 'quoted' $HOME `x`"],
            body: .string("body with 'quotes' and $vars"))
        let command = request.cURLDescription()
        #expect(command.hasPrefix("curl -X 'POST'"))
        let shell = try await ChildProcess.run("/bin/sh", ["-c", command + " --silent"])
        #expect(shell.status == 0, "\(shell.errorText)")
        let echo = try Fixtures.echo(shell.output)
        #expect(echo.method == "POST")
        #expect(echo.headers["x-quote"] == "a 'quoted' $HOME `x`")
        #expect(echo.body == "body with 'quotes' and $vars")
        #expect(echo.args["q"] == .one("it's"))
    }
}
