import Curlew
import Foundation
import Testing
import TestServer

#if canImport(Glibc)
import Glibc
#endif

/// Resume data is what apps write to disk, so it is untrusted input (issue #28, defect 5): the
/// partial file is only ever the one Curlew derives from the destination, in the destination's
/// folder, opened without following links, and a regular file of this user's with one link.
/// Anything else fails before a byte is written, and the file it named is untouched.
@Suite("Tampered resume data and partial files")
struct ResumeDataTamperingTests {
    /// A file outside the download's folder, which a tampered partial file points at.
    private struct Victim {
        let directory: URL
        let file: URL
        let bytes: Data

        init(size: Int) throws {
            directory = try ResumeFiles.temporaryDirectory("curlew-victim")
            file = directory.appendingPathComponent("precious.bin")
            bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
            try bytes.write(to: file)
        }

        /// Byte for byte as it was, and alone in its folder.
        func expectUntouched(sourceLocation: SourceLocation = #_sourceLocation) throws {
            #expect(try Data(contentsOf: file) == bytes, "the file outside the destination is untouched", sourceLocation: sourceLocation)
            #expect(try ResumeFiles.contents(of: directory) == ["precious.bin"], sourceLocation: sourceLocation)
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    /// The partial file replaced by a symbolic link to a file elsewhere, of the same size: a
    /// `206` would append to it and a `200` truncate it if the link were followed.
    @Test(arguments: ["", "&ranges=0"])
    func aSymbolicLinkAtThePartialPathIsNotFollowed(answer: String) async throws {
        let server = try await Fixtures.server()
        let directory = try ResumeFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let victim = try Victim(size: 20000)
        defer { victim.remove() }
        let destination = directory.appendingPathComponent("link.bin")
        let kept = try await ResumeFiles.interrupted(server, "/resumable?length=60000&drop=20000", to: destination)
        let partialName = kept.partialFileURL.lastPathComponent
        try FileManager.default.removeItem(at: kept.partialFileURL)
        try FileManager.default.createSymbolicLink(at: kept.partialFileURL, withDestinationURL: victim.file)

        let aimed = try ResumeFiles.retargeted(kept, to: server.url("/resumable?length=60000\(answer)"))
        let error = await ResumeFiles.failure(of: Fixtures.session.download(resumingWith: aimed, to: .file(destination)))
        #expect(error?.kind == .resumeFailed, "\(String(describing: error))")
        #expect(error?.message.contains("symbolic link") == true, "\(String(describing: error))")
        try victim.expectUntouched()
        #expect(try ResumeFiles.contents(of: directory) == [partialName], "the link stays, and nothing reached the destination")
    }

    /// A hard link: a regular file, but also a name elsewhere, so writing to it writes there.
    @Test func aPartialFileWithAnotherLinkIsRefused() async throws {
        let server = try await Fixtures.server()
        let directory = try ResumeFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let victim = try Victim(size: 20000)
        defer { victim.remove() }
        let destination = directory.appendingPathComponent("hard.bin")
        let kept = try await ResumeFiles.interrupted(server, "/resumable?length=60000&drop=20000", to: destination)
        try FileManager.default.removeItem(at: kept.partialFileURL)
        #expect(link(victim.file.path, kept.partialFileURL.path) == 0, "both folders are in the temporary directory")

        let aimed = try ResumeFiles.retargeted(kept, to: server.url("/resumable?length=60000"))
        let error = await ResumeFiles.failure(of: Fixtures.session.download(resumingWith: aimed, to: .file(destination)))
        #expect(error?.kind == .resumeFailed, "\(String(describing: error))")
        #expect(error?.message.contains("link") == true, "\(String(describing: error))")
        try victim.expectUntouched()
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    /// A FIFO at the partial path: opening it to write would block the session's curl thread
    /// until some reader came; it is refused at once instead.
    @Test func aFIFOAtThePartialPathIsRefusedWithoutBlocking() async throws {
        let server = try await Fixtures.server()
        let directory = try ResumeFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("fifo.bin")
        let kept = try await ResumeFiles.interrupted(server, "/resumable?length=60000&drop=20000", to: destination)
        try FileManager.default.removeItem(at: kept.partialFileURL)
        #expect(mkfifo(kept.partialFileURL.path, 0o600) == 0)
        let session = Session()
        defer { Task { await session.shutdown() } }
        let aimed = try ResumeFiles.retargeted(kept, to: server.url("/resumable?length=60000&ranges=0"))
        let error = await ResumeFiles.failure(of: session.download(resumingWith: aimed, to: .file(destination)))
        #expect(error?.kind == .resumeFailed, "\(String(describing: error))")
        #expect(error?.message.contains("regular file") == true, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    /// A partial file of another user's (as root, the test hands it to `nobody`).
    @Test(.enabled(if: geteuid() == 0, "only root can give a file away"))
    func aPartialFileOfAnotherUserIsRefused() async throws {
        let server = try await Fixtures.server()
        let directory = try ResumeFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("owned.bin")
        let kept = try await ResumeFiles.interrupted(server, "/resumable?length=60000&drop=20000", to: destination)
        #expect(chown(kept.partialFileURL.path, 65534, 65534) == 0)
        let aimed = try ResumeFiles.retargeted(kept, to: server.url("/resumable?length=60000"))
        let error = await ResumeFiles.failure(of: Fixtures.session.download(resumingWith: aimed, to: .file(destination)))
        #expect(error?.kind == .resumeFailed, "\(String(describing: error))")
        #expect(error?.message.contains("owned") == true, "\(String(describing: error))")
        #expect(try Data(contentsOf: kept.partialFileURL) == Data(TestServer.expectedBytes(count: 20000)))
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    /// Resume data whose partial file is in another folder, named as Curlew names partial
    /// files: nothing is written there, and nothing is moved from there into place.
    @Test func aPartialFileInAnotherFolderIsRefused() async throws {
        let server = try await Fixtures.server()
        let directory = try ResumeFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let elsewhere = try ResumeFiles.temporaryDirectory("curlew-elsewhere")
        defer { try? FileManager.default.removeItem(at: elsewhere) }
        let destination = directory.appendingPathComponent("moved.bin")
        let kept = try await ResumeFiles.interrupted(server, "/resumable?length=60000&drop=20000", to: destination)
        let foreign = elsewhere.appendingPathComponent(kept.partialFileURL.lastPathComponent)
        let foreignBytes = Data(repeating: 0xAB, count: 20000)
        try foreignBytes.write(to: foreign)
        let unique = "/resumable/\(UUID().uuidString)"
        let aimed = try ResumeFiles.edited(kept, [
            "partialFileURL": foreign.absoluteString, "url": server.url("\(unique)?length=60000").absoluteString,
        ])
        let error = await ResumeFiles.failure(of: Fixtures.session.download(resumingWith: aimed, to: .file(destination)))
        #expect(error?.kind == .invalidRequest, "\(String(describing: error))")
        #expect(try Data(contentsOf: foreign) == foreignBytes, "the file in the other folder is untouched")
        #expect(try ResumeFiles.contents(of: elsewhere) == [foreign.lastPathComponent])
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        #expect(try Data(contentsOf: kept.partialFileURL) == Data(TestServer.expectedBytes(count: 20000)))
        kept.discardPartialFile()
    }

    /// A partial file beside the destination but named for another destination (another
    /// download's partial file): refused, and that file is untouched.
    @Test func aPartialFileOfAnotherDestinationIsRefused() async throws {
        let server = try await Fixtures.server()
        let directory = try ResumeFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let other = directory.appendingPathComponent("other.bin")
        let kept = try await ResumeFiles.interrupted(server, "/resumable?length=60000&drop=20000", to: other)
        let destination = directory.appendingPathComponent("mine.bin")
        let aimed = try ResumeFiles.retargeted(kept, to: server.url("/resumable?length=60000&ranges=0"))
        let error = await ResumeFiles.failure(of: Fixtures.session.download(resumingWith: aimed, to: .file(destination)))
        #expect(error?.kind == .invalidRequest, "\(String(describing: error))")
        #expect(error?.message.contains("mine.bin") == true, "\(String(describing: error))")
        #expect(try Data(contentsOf: kept.partialFileURL) == Data(TestServer.expectedBytes(count: 20000)))
        #expect(try ResumeFiles.contents(of: directory) == [kept.partialFileURL.lastPathComponent])
        kept.discardPartialFile()
    }

    /// `discardPartialFile()` of tampered resume data removes nothing but a partial file.
    @Test func discardingTamperedResumeDataRemovesNothingElse() async throws {
        let server = try await Fixtures.server()
        let directory = try ResumeFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let victim = try Victim(size: 100)
        defer { victim.remove() }
        let kept = try await ResumeFiles.interrupted(
            server, "/resumable?length=60000&drop=20000", to: directory.appendingPathComponent("d.bin"))
        let aimed = try ResumeFiles.edited(kept, ["partialFileURL": victim.file.absoluteString])
        aimed.discardPartialFile()
        try victim.expectUntouched()
        kept.discardPartialFile()
        #expect(try ResumeFiles.contents(of: directory).isEmpty)
    }

    /// Other fields of stored resume data are checked before anything is sent: the method (a
    /// range is only defined for GET), the sizes, the validator's characters.
    @Test(arguments: [
        ["method": "DELETE"], ["bytesOnDisk": -1], ["totalBytes": 100], ["validator": "\"v0\"\r\nX-Injected: 1"],
        ["validator": ""],
    ] as [[String: any Sendable]])
    func otherTamperedFieldsSendNothing(change: [String: any Sendable]) async throws {
        let server = try await Fixtures.server()
        let directory = try ResumeFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("f.bin")
        let kept = try await ResumeFiles.interrupted(server, "/resumable?length=60000&drop=20000", to: destination)
        let unique = "/resumable/\(UUID().uuidString)"
        var changes: [String: Any] = ["url": server.url("\(unique)?length=60000").absoluteString]
        for (key, value) in change { changes[key] = value }
        let aimed = try ResumeFiles.edited(kept, changes)
        let error = await ResumeFiles.failure(of: Fixtures.session.download(resumingWith: aimed, to: .file(destination)))
        #expect(error?.kind == .invalidRequest, "\(String(describing: error))")
        #expect(server.requestCount(path: unique) == 0, "nothing was sent")
        #expect(try Data(contentsOf: kept.partialFileURL) == Data(TestServer.expectedBytes(count: 20000)))
        kept.discardPartialFile()
    }
}
