import Curlew
import Foundation
import Testing
import TestServer

/// Resumable downloads: resume data from a failed or cancelled download, and
/// `download(resumingWith:to:)` continuing it with `Range` and `If-Range` against
/// `/resumable` (see `ResumeRoutes`).
@Suite("Resumable downloads")
struct ResumableDownloadTests {
    @Test func aDroppedDownloadResumesToTheSameBytes() async throws {
        let server = try await Fixtures.server()
        let directory = try ResumeFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("big.bin")
        let resumeData = try await ResumeFiles.interrupted(server, "/resumable?length=300000&drop=120000", to: destination)
        #expect(resumeData.bytesOnDisk == 120_000)
        #expect(resumeData.totalBytes == 300_000)
        #expect(resumeData.validator == "\"v0\"")
        #expect(resumeData.method == "GET")
        #expect(resumeData.partialFileURL.deletingLastPathComponent().standardizedFileURL.path == directory.standardizedFileURL.path,
                "the partial file is beside the destination, not in a folder cleaned at exit")
        #expect(try Data(contentsOf: resumeData.partialFileURL).count == 120_000)

        // Resume data survives a JSON round trip (a process restart).
        let restored = try JSONDecoder().decode(DownloadResumeData.self, from: JSONEncoder().encode(resumeData))
        #expect(restored == resumeData)

        let file = try await Fixtures.session.download(resumingWith: restored, to: .file(destination)).validate().fileURL()
        #expect(file == destination)
        #expect(try Data(contentsOf: destination) == Data(TestServer.expectedBytes(count: 300_000)))
        #expect(try ResumeFiles.contents(of: directory) == ["big.bin"], "the partial file became the destination")
    }

    @Test func progressOfAResumedDownloadStartsAtTheResumedOffset() async throws {
        let server = try await Fixtures.server()
        let directory = try ResumeFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("p.bin")
        let resumeData = try await ResumeFiles.interrupted(server, "/resumable?length=200000&drop=50000", to: destination)
        var first: TransferProgress?
        var last: TransferProgress?
        for try await event in Fixtures.session.download(resumingWith: resumeData, to: .file(destination)).events {
            if case .downloadProgress(let progress) = event {
                if first == nil { first = progress }
                last = progress
            }
        }
        #expect(first?.completedBytes == 50_000, "the first event reports N of the whole, not 0 of the rest")
        #expect(first?.totalBytes == 200_000)
        #expect(last?.completedBytes == 200_000)
        #expect(last?.totalBytes == 200_000)
        #expect(try Data(contentsOf: destination) == Data(TestServer.expectedBytes(count: 200_000)))
    }

    @Test func aChangedResourceRestartsWithoutMixingVersions() async throws {
        let server = try await Fixtures.server()
        let directory = try ResumeFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("v.bin")
        let original = try await ResumeFiles.interrupted(server, "/resumable?length=100000&seed=1&drop=40000", to: destination)
        // The resource is now version 2: its ETag no longer matches If-Range, so the server sends it whole.
        let changed = try ResumeFiles.edited(original, ["url": server.url("/resumable?length=100000&seed=2").absoluteString])
        let response = try await Fixtures.session.download(resumingWith: changed, to: .file(destination)).validate().response
        #expect(response.head.status.code == 200)
        #expect(try Data(contentsOf: destination) == Data(TestServer.expectedBytes(count: 100_000, seed: 2)))
        #expect(try ResumeFiles.contents(of: directory) == ["v.bin"])
    }

    @Test func aServerWithoutRangesRestartsFromZero() async throws {
        let server = try await Fixtures.server()
        let directory = try ResumeFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("r.bin")
        let resumeData = try await ResumeFiles.interrupted(
            server, "/resumable?length=100000&ranges=0&validator=last-modified&drop=30000", to: destination)
        #expect(resumeData.validator == "Tue, 15 Nov 1994 08:12:31 GMT")
        // The same resource, which no longer drops the connection.
        let again = try ResumeFiles.edited(resumeData, ["url": server.url("/resumable?length=100000&ranges=0&validator=last-modified").absoluteString])
        let response = try await Fixtures.session.download(resumingWith: again, to: .file(destination)).validate().response
        #expect(response.head.status.code == 200)
        #expect(try Data(contentsOf: destination) == Data(TestServer.expectedBytes(count: 100_000)), "truncated, not appended")
        #expect(try ResumeFiles.contents(of: directory) == ["r.bin"])
    }

    @Test func a416ForACompleteFileFinishesWithIt() async throws {
        let server = try await Fixtures.server()
        let directory = try ResumeFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("whole.bin")
        let partial = try await ResumeFiles.interrupted(server, "/resumable?length=20000&drop=5000", to: destination)
        // Every byte arrived, but the connection dropped before the transfer was known complete.
        try Data(TestServer.expectedBytes(count: 20000)).write(to: partial.partialFileURL)
        let whole = try ResumeFiles.edited(partial, ["bytesOnDisk": 20000])
        let response = try await Fixtures.session.download(resumingWith: whole, to: .file(destination)).validate().response
        #expect(response.head.status.code == 200)
        #expect(try Data(contentsOf: destination) == Data(TestServer.expectedBytes(count: 20000)))
        #expect(try ResumeFiles.contents(of: directory) == ["whole.bin"])
    }

    @Test(arguments: ["badStart=1", "badTotal=1"])
    func aMismatchedContentRangeFailsAndWritesNothing(fault: String) async throws {
        let server = try await Fixtures.server()
        let directory = try ResumeFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("m.bin")
        let partial = try await ResumeFiles.interrupted(server, "/resumable?length=50000&drop=10000", to: destination)
        let faulty = try ResumeFiles.edited(partial, ["url": server.url("/resumable?length=50000&\(fault)").absoluteString])
        let error = await #expect(throws: CurlewError.self) {
            _ = try await Fixtures.session.download(resumingWith: faulty, to: .file(destination)).fileURL()
        }
        #expect(error?.kind == .resumeFailed)
        #expect(!FileManager.default.fileExists(atPath: destination.path), "no corrupted file at the destination")
        #expect(try Data(contentsOf: partial.partialFileURL) == Data(TestServer.expectedBytes(count: 10000)),
                "the partial file is as it was")
        partial.discardPartialFile()
        #expect(try ResumeFiles.contents(of: directory).isEmpty)
    }

    @Test func cancellingWithResumeDataKeepsThePartialFile() async throws {
        let server = try await Fixtures.server()
        let directory = try ResumeFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("c.bin")
        let download = Fixtures.session.download(server.url("/resumable?length=80000&stall=30000"), to: .file(destination))
        var resumeData: DownloadResumeData?
        for try await event in download.events {
            if case .downloadProgress(let progress) = event, progress.completedBytes >= 30000 {
                resumeData = await download.cancel(producingResumeData: true)
                break
            }
        }
        let kept = try #require(resumeData)
        #expect(kept.bytesOnDisk == 30000)
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        let file = try await Fixtures.session.download(resumingWith: kept, to: .file(destination)).validate().fileURL()
        #expect(try Data(contentsOf: file) == Data(TestServer.expectedBytes(count: 80000)))
        #expect(try ResumeFiles.contents(of: directory) == ["c.bin"])
    }

    @Test func aPlainCancelOrAFailureWithoutValidatorLeavesNothing() async throws {
        let server = try await Fixtures.server()
        let directory = try ResumeFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("n.bin")
        let download = Fixtures.session.download(server.url("/resumable?length=80000&stall=30000"), to: .file(destination))
        for try await event in download.events {
            if case .downloadProgress(let progress) = event, progress.completedBytes >= 30000 {
                download.cancel()
                break
            }
        }
        _ = try? await download.fileURL()
        #expect(try ResumeFiles.contents(of: directory).isEmpty, "a plain cancel keeps no partial file")

        let error = await #expect(throws: CurlewError.self) {
            _ = try await Fixtures.session.download(
                server.url("/resumable?length=80000&validator=none&drop=30000"), to: .file(destination)
            ).fileURL()
        }
        #expect(error?.downloadResumeData == nil, "without a validator nothing can be resumed")
        #expect(try ResumeFiles.contents(of: directory).isEmpty)
    }

    @Test func resumeDataPointingAtAnyOtherFileIsRefused() async throws {
        let server = try await Fixtures.server()
        let directory = try ResumeFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("x.bin")
        let partial = try await ResumeFiles.interrupted(server, "/resumable?length=50000&drop=10000", to: destination)
        partial.discardPartialFile()
        let precious = directory.appendingPathComponent("precious.txt")
        try Data("keep me".utf8).write(to: precious)
        // Stored resume data edited to aim at another file; a 200 would otherwise truncate it.
        let forged = try ResumeFiles.edited(partial, [
            "partialFileURL": precious.absoluteString, "bytesOnDisk": 7,
            "url": server.url("/resumable?length=50000&ranges=0").absoluteString,
        ])
        let error = await #expect(throws: CurlewError.self) {
            _ = try await Fixtures.session.download(resumingWith: forged, to: .file(destination)).fileURL()
        }
        #expect(error?.kind == .invalidRequest)
        #expect(try Data(contentsOf: precious) == Data("keep me".utf8))
        #expect(try ResumeFiles.contents(of: directory) == ["precious.txt"])
    }
}
