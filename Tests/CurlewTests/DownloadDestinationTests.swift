import Curlew
import Foundation
import Testing
import TestServer

#if canImport(Glibc)
import Glibc
#endif

/// Where a download lands: links at the destination, a missing folder, downloads racing for one
/// destination, a file appearing meanwhile, and the temporary file's permissions and
/// descriptor (docs/SECURITY.md, "Download destinations").
@Suite("Download destinations")
struct DownloadDestinationTests {
    /// With `.removePreviousFile`, a symbolic link at the destination is replaced by the
    /// download (`rename` replaces the link itself); the file it pointed at is untouched.
    @Test func aSymbolicLinkAtTheDestinationIsReplacedNotFollowed() async throws {
        let server = try await Fixtures.server()
        let directory = try ResumeFiles.temporaryDirectory("curlew-destination")
        defer { try? FileManager.default.removeItem(at: directory) }
        let outside = try ResumeFiles.temporaryDirectory("curlew-outside")
        defer { try? FileManager.default.removeItem(at: outside) }
        let target = outside.appendingPathComponent("target.txt")
        try Data("outside".utf8).write(to: target)
        let destination = directory.appendingPathComponent("linked.bin")
        try FileManager.default.createSymbolicLink(at: destination, withDestinationURL: target)

        _ = try await Fixtures.session.download(server.url("/bytes/5000"), to: .file(destination, options: [.removePreviousFile]))
            .validate().fileURL()
        let attributes = try FileManager.default.attributesOfItem(atPath: destination.path)
        #expect(attributes[.type] as? FileAttributeType == .typeRegular, "the link itself was replaced")
        #expect(try Data(contentsOf: destination) == Data(TestServer.expectedBytes(count: 5000)))
        #expect(try Data(contentsOf: target) == Data("outside".utf8), "the link's target is untouched")
        #expect(try ResumeFiles.contents(of: directory) == ["linked.bin"])
    }

    /// Without `.removePreviousFile`, a symbolic link at the destination is a file there, even
    /// when what it names does not exist: the download fails and the link stays.
    @Test func aDanglingSymbolicLinkAtTheDestinationIsAnExistingFile() async throws {
        let server = try await Fixtures.server()
        let directory = try ResumeFiles.temporaryDirectory("curlew-destination")
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("dangling.bin")
        let nowhere = directory.appendingPathComponent("nowhere")
        try FileManager.default.createSymbolicLink(at: destination, withDestinationURL: nowhere)

        let error = await ResumeFiles.failure(of: Fixtures.session.download(server.url("/bytes/5000"), to: .file(destination)))
        #expect(error?.kind == .fileSystem, "\(String(describing: error))")
        #expect((error?.underlying as? POSIXError)?.code == .EEXIST, "\(String(describing: error))")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: destination.path) == nowhere.path)
        #expect(try ResumeFiles.contents(of: directory) == ["dangling.bin"], "no temporary file, nothing created at the link's target")
    }

    /// A file name the server suggests (`Content-Disposition`) is a name, never a path: `..` and
    /// slashes cannot take a `.directory` download out of its folder.
    @Test(arguments: ["attachment; filename=\"../../escape.bin\"", "attachment; filename*=UTF-8''..%2F..%2Fescape.bin"])
    func aSuggestedFileNameCannotLeaveTheFolder(disposition: String) async throws {
        let server = try await Fixtures.server()
        let root = try ResumeFiles.temporaryDirectory("curlew-destination")
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = root.appendingPathComponent("a/b")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let encoded = try #require(disposition.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let file = try await Fixtures.session.download(
            server.url("/response-headers?Content-Disposition=\(encoded)"), to: .directory(directory)
        ).validate().fileURL()
        #expect(file == directory.appendingPathComponent("escape.bin"))
        #expect(try ResumeFiles.contents(of: root) == ["a"])
        #expect(try ResumeFiles.contents(of: directory) == ["escape.bin"])
    }

    /// A destination whose folder does not exist fails unless `.createIntermediateDirectories`
    /// is given; nothing is created on the way.
    @Test func aMissingFolderFailsWithoutCreatingIt() async throws {
        let server = try await Fixtures.server()
        let directory = try ResumeFiles.temporaryDirectory("curlew-destination")
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("missing/inner/file.bin")
        let error = await ResumeFiles.failure(of: Fixtures.session.download(server.url("/bytes/100"), to: .file(destination)))
        #expect(error?.kind == .fileSystem, "\(String(describing: error))")
        #expect((error?.underlying as? POSIXError)?.code == .ENOENT, "\(String(describing: error))")
        #expect(try ResumeFiles.contents(of: directory).isEmpty)
    }

    /// Downloads racing for one destination: without `.removePreviousFile` exactly one lands
    /// and the others fail (the move into place refuses an existing file atomically); with it,
    /// each lands whole in turn. Either way the file is one download's body, whole, and no
    /// temporary file stays.
    @Test(arguments: [false, true])
    func concurrentDownloadsToOneDestination(replacing: Bool) async throws {
        let server = try await Fixtures.server()
        let directory = try ResumeFiles.temporaryDirectory("curlew-destination")
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("raced.bin")
        let options: DownloadOptions = replacing ? [.removePreviousFile] : []
        let seeds: [UInt64] = Array(1...6)
        let outcomes = await withTaskGroup(of: Result<URL, CurlewError>.self) { group in
            for seed in seeds {
                group.addTask {
                    do throws(CurlewError) {
                        return .success(try await Fixtures.session.download(
                            server.url("/bytes/200000?seed=\(seed)"), to: .file(destination, options: options)
                        ).validate().fileURL())
                    } catch {
                        return .failure(error)
                    }
                }
            }
            var all: [Result<URL, CurlewError>] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        let landed = outcomes.filter { if case .success = $0 { true } else { false } }.count
        if replacing {
            #expect(landed == seeds.count)
        } else {
            #expect(landed == 1, "exactly one download lands: \(outcomes)")
            for case .failure(let error) in outcomes { #expect(error.kind == .fileSystem, "\(error)") }
        }
        let body = try Data(contentsOf: destination)
        #expect(seeds.contains { body == Data(TestServer.expectedBytes(count: 200_000, seed: $0)) }, "one download's body, whole")
        #expect(try ResumeFiles.contents(of: directory) == ["raced.bin"])
    }

    /// A file that appears at the destination while the download runs (here: written by a
    /// validation, which runs before the move into place) is not replaced.
    @Test func aFileAppearingDuringTheDownloadIsKept() async throws {
        let server = try await Fixtures.server()
        let directory = try ResumeFiles.temporaryDirectory("curlew-destination")
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("appeared.bin")
        let download = Fixtures.session.download(server.url("/bytes/5000"), to: .file(destination)).validate { _, _, _ in
            try Data("someone else's".utf8).write(to: destination)
        }
        let error = await ResumeFiles.failure(of: download)
        #expect(error?.kind == .fileSystem, "\(String(describing: error))")
        #expect((error?.underlying as? POSIXError)?.code == .EEXIST, "\(String(describing: error))")
        #expect(try Data(contentsOf: destination) == Data("someone else's".utf8))
        #expect(try ResumeFiles.contents(of: directory) == ["appeared.bin"], "no temporary file stays")
    }

    /// The temporary file — new, or a partial file resumed — is readable by its owner only
    /// (0600, whatever the umask), so is the finished file, and its descriptor is closed on
    /// `exec`, so that a child process the app starts meanwhile does not inherit it.
    @Test(arguments: ["", "resumed"])
    func theTemporaryFileIsPrivateAndClosedOnExec(kind: String) async throws {
        let server = try await Fixtures.server()
        let directory = try ResumeFiles.temporaryDirectory("curlew-destination")
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("private.bin")
        let download: DownloadRequest
        if kind == "resumed" {
            let kept = try await ResumeFiles.interrupted(server, "/resumable?length=80000&drop=10000", to: destination)
            #expect(try ResumeFiles.status(of: kept.partialFileURL).mode == 0o600)
            // A 200 to the resumed request: the partial file is opened again, and stalls.
            let stalled = try ResumeFiles.retargeted(kept, to: server.url("/resumable?length=80000&ranges=0&stall=30000"))
            download = Fixtures.session.download(resumingWith: stalled, to: .file(destination))
        } else {
            download = Fixtures.session.download(server.url("/resumable?length=80000&stall=30000"), to: .file(destination))
        }
        var checked = false
        for try await event in download.events {
            guard case .downloadProgress(let progress) = event, progress.completedBytes >= 30000 else { continue }
            let name = try #require(try ResumeFiles.contents(of: directory).first { $0.hasPrefix(".private.bin.curlew-") })
            let path = directory.appendingPathComponent(name).path
            #expect(try ResumeFiles.status(of: URL(fileURLWithPath: path)).mode == 0o600)
            let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap { Int32($0) }
            let open = descriptors.filter { descriptor in
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")) == path
            }
            #expect(open.count == 1, "one descriptor for the temporary file")
            for descriptor in open {
                #expect(fcntl(descriptor, F_GETFD) & FD_CLOEXEC != 0, "the descriptor is closed on exec")
            }
            checked = true
            download.cancel()
            break
        }
        #expect(checked)
        _ = try? await download.fileURL()
        #expect(try ResumeFiles.contents(of: directory).isEmpty, "a plain cancel leaves nothing")

        _ = try await Fixtures.session.download(server.url("/bytes/100"), to: .file(destination)).fileURL()
        #expect(try ResumeFiles.status(of: destination).mode == 0o600, "the finished file too")
    }

    /// Shutting the session down mid-download keeps the partial file (owner-only) with resume
    /// data in the error, so the download can go on in the next process; discarding it leaves
    /// nothing.
    @Test func aShutdownKeepsAPrivatePartialFileToResume() async throws {
        let server = try await Fixtures.server()
        let directory = try ResumeFiles.temporaryDirectory("curlew-destination")
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("shutdown.bin")
        let session = Session()
        let download = session.download(server.url("/resumable?length=80000&stall=30000"), to: .file(destination))
        // Leaving the loop early would cancel the download: the shutdown ends it instead.
        var shutDown = false
        do {
            for try await event in download.events {
                guard !shutDown, case .downloadProgress(let progress) = event, progress.completedBytes >= 30000 else { continue }
                shutDown = true
                await session.shutdown()
            }
        } catch {}
        #expect(shutDown)
        let error = await ResumeFiles.failure(of: download)
        #expect(error?.kind == .sessionShutdown, "\(String(describing: error))")
        let kept = try #require(error?.downloadResumeData)
        #expect(kept.bytesOnDisk == 30000)
        let status = try ResumeFiles.status(of: kept.partialFileURL)
        #expect(status.mode == 0o600)
        #expect(status.links == 1)
        let resumed = try ResumeFiles.retargeted(kept, to: server.url("/resumable?length=80000"))
        _ = try await Fixtures.session.download(resumingWith: resumed, to: .file(destination)).validate().fileURL()
        #expect(try Data(contentsOf: destination) == Data(TestServer.expectedBytes(count: 80000)))
        #expect(try ResumeFiles.contents(of: directory) == ["shutdown.bin"])
    }
}
