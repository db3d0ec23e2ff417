import Curlew
import Foundation
import Testing
import TestServer

/// Resumed downloads against servers that lie (issue #28, defects 3 and 4): a range of another
/// version, a body longer or shorter than its `Content-Range`, a `416` with another total. The
/// finished file is exactly the representation, or the download fails with `resumeFailed`; a
/// partial file never gets foreign bytes.
@Suite("Resumed downloads against hostile servers")
struct HostileResumeTests {
    /// A partial download of `length` bytes (version `seed`) with `kept` bytes on disk.
    private func partial(
        _ server: TestServer, length: Int, kept: Int, seed: Int = 0, query: String = "", to destination: URL
    ) async throws -> DownloadResumeData {
        try await ResumeFiles.interrupted(
            server, "/resumable?length=\(length)&seed=\(seed)&drop=\(kept)\(query)", to: destination)
    }

    // MARK: Defect 3: validators

    /// A server that ignores `If-Range` answers with a range of version 2 under its own `ETag`, or
    /// with no validator at all: its bytes are never appended to version 1's. The partial file
    /// belongs to a representation the server no longer serves, so it is removed (see
    /// ARCHITECTURE.md, "Resumed downloads").
    @Test(arguments: ["seed=2", "seed=1&validator=none", "seed=1&validator=weak"])
    func aRangeWithoutTheSameStrongValidatorIsNeverAppended(answer: String) async throws {
        let server = try await Fixtures.server()
        let directory = try ResumeFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("mixed.bin")
        let original = try await partial(server, length: 100_000, kept: 30000, seed: 1, to: destination)
        let changed = try ResumeFiles.retargeted(
            original, to: server.url("/resumable?length=100000&ignoreIfRange=1&\(answer)"))
        let error = await ResumeFiles.failure(of: Fixtures.session.download(resumingWith: changed, to: .file(destination)))
        #expect(error?.kind == .resumeFailed, "\(String(describing: error))")
        #expect(error?.message.contains("validator") == true, "\(String(describing: error))")
        #expect(error?.downloadResumeData == nil, "a partial file of a replaced version is not worth resuming")
        #expect(try ResumeFiles.contents(of: directory).isEmpty, "nothing at the destination, and the stale partial file is gone")
    }

    /// A weak `ETag` says two bodies are equivalent, not byte for byte the same (RFC 9110
    /// §8.8.3): it never becomes a resume validator, so no resume data is given for it.
    @Test(arguments: ["validator=weak", "validator=recent-last-modified"])
    func aWeakValidatorGivesNoResumeData(validator: String) async throws {
        let server = try await Fixtures.server()
        let directory = try ResumeFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("weak.bin")
        let error = await ResumeFiles.failure(
            of: Fixtures.session.download(server.url("/resumable?length=50000&drop=10000&\(validator)"), to: .file(destination)))
        #expect(error?.kind == .connectionClosedMidBody)
        #expect(error?.downloadResumeData == nil, "a weak validator cannot protect a resumed range")
        #expect(try ResumeFiles.contents(of: directory).isEmpty)
    }

    /// A strong `Last-Modified` (a day before the response's `Date`) is a resume validator: a
    /// range whose `Last-Modified` is the same continues the file.
    @Test func aStrongLastModifiedDateResumes() async throws {
        let server = try await Fixtures.server()
        let directory = try ResumeFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("dated.bin")
        let kept = try await partial(server, length: 60000, kept: 20000, query: "&validator=last-modified", to: destination)
        #expect(kept.validator == "Tue, 15 Nov 1994 08:12:31 GMT")
        let again = try ResumeFiles.retargeted(kept, to: server.url("/resumable?length=60000&validator=last-modified"))
        let response = try await Fixtures.session.download(resumingWith: again, to: .file(destination)).validate().response
        #expect(response.head.status.code == 206)
        #expect(try Data(contentsOf: destination) == Data(TestServer.expectedBytes(count: 60000)))
    }

    /// A content-coded body is stored decoded, so the bytes on disk are not the bytes a range
    /// counts: it gives no resume data, whatever its validator.
    @Test func aContentCodedDownloadGivesNoResumeData() async throws {
        let server = try await Fixtures.server()
        let directory = try ResumeFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("coded.bin")
        let error = await ResumeFiles.failure(
            of: Fixtures.session.download(server.url("/resumable?length=400000&gzip=1&drop=100"), to: .file(destination)))
        #expect(error?.kind == .connectionClosedMidBody, "\(String(describing: error))")
        #expect(error?.downloadResumeData == nil)
        #expect(try ResumeFiles.contents(of: directory).isEmpty)
    }

    /// Resume data stored with a weak validator (edited, or written by another program) is
    /// refused before anything is sent: a client must not send a weak `ETag` in `If-Range`.
    @Test func storedResumeDataWithAWeakValidatorSendsNothing() async throws {
        let server = try await Fixtures.server()
        let directory = try ResumeFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("w.bin")
        let kept = try await partial(server, length: 50000, kept: 10000, to: destination)
        let unique = "/resumable/\(UUID().uuidString)"
        let weak = try ResumeFiles.edited(kept, [
            "validator": "W/\"v0\"", "url": server.url("\(unique)?length=50000&validator=weak").absoluteString,
        ])
        let error = await ResumeFiles.failure(of: Fixtures.session.download(resumingWith: weak, to: .file(destination)))
        #expect(error?.kind == .invalidRequest, "\(String(describing: error))")
        #expect(server.requestCount(path: unique) == 0, "nothing was sent")
        #expect(try Data(contentsOf: kept.partialFileURL) == Data(TestServer.expectedBytes(count: 10000)))
        kept.discardPartialFile()
        #expect(try ResumeFiles.contents(of: directory).isEmpty)
    }

    // MARK: Defect 4: lengths

    /// A `206` whose body runs past its `Content-Range` (with a `Content-Length` that counts the
    /// extra bytes): the excess is refused, not written; the partial file is as it was before
    /// this attempt, and the resume data continues it.
    @Test(arguments: [1, 100])
    func aBodyLongerThanItsContentRangeIsRefused(extra: Int) async throws {
        let server = try await Fixtures.server()
        let directory = try ResumeFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("long.bin")
        let kept = try await partial(server, length: 100_000, kept: 30000, to: destination)
        let long = try ResumeFiles.retargeted(kept, to: server.url("/resumable?length=100000&longBody=\(extra)"))
        let error = await ResumeFiles.failure(of: Fixtures.session.download(resumingWith: long, to: .file(destination)))
        #expect(error?.kind == .resumeFailed, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        let again = try #require(error?.downloadResumeData, "the partial file is kept for another try")
        #expect(again.bytesOnDisk == 30000, "the partial file is as it was before the attempt")
        #expect(try Data(contentsOf: again.partialFileURL) == Data(TestServer.expectedBytes(count: 30000)))

        // Another try against an honest server finishes the file exactly.
        let honest = try ResumeFiles.retargeted(again, to: server.url("/resumable?length=100000"))
        _ = try await Fixtures.session.download(resumingWith: honest, to: .file(destination)).validate().fileURL()
        #expect(try Data(contentsOf: destination) == Data(TestServer.expectedBytes(count: 100_000)))
        #expect(try ResumeFiles.contents(of: directory) == ["long.bin"])
    }

    /// A `206` whose range ends before the representation does (`bytes 30000-30099/100000`, or
    /// one byte short): the download fails rather than finishing short; the range's bytes,
    /// validated, are kept, and the resume data continues after them.
    @Test(arguments: [100, 69999])
    func aRangeThatEndsEarlyFailsAndKeepsWhatItDelivered(delivered: Int) async throws {
        let server = try await Fixtures.server()
        let directory = try ResumeFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("short.bin")
        let kept = try await partial(server, length: 100_000, kept: 30000, to: destination)
        let short = try ResumeFiles.retargeted(kept, to: server.url("/resumable?length=100000&shortRange=\(delivered)"))
        let error = await ResumeFiles.failure(of: Fixtures.session.download(resumingWith: short, to: .file(destination)))
        #expect(error?.kind == .resumeFailed, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: destination.path), "a short file never reaches the destination")
        let again = try #require(error?.downloadResumeData)
        #expect(again.bytesOnDisk == Int64(30000 + delivered))
        #expect(again.totalBytes == 100_000)
        #expect(try Data(contentsOf: again.partialFileURL) == Data(TestServer.expectedBytes(count: 30000 + delivered)))

        let honest = try ResumeFiles.retargeted(again, to: server.url("/resumable?length=100000"))
        _ = try await Fixtures.session.download(resumingWith: honest, to: .file(destination)).validate().fileURL()
        #expect(try Data(contentsOf: destination) == Data(TestServer.expectedBytes(count: 100_000)))
        #expect(try ResumeFiles.contents(of: directory) == ["short.bin"])
    }

    /// A `416` saying the representation is as long as the partial file, after a first response
    /// that said it was longer: the file is not complete, whatever the `416` claims.
    @Test func a416WithAnotherTotalThanTheFirstResponseFails() async throws {
        let server = try await Fixtures.server()
        let directory = try ResumeFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("416.bin")
        let kept = try await partial(server, length: 100_000, kept: 30000, to: destination)
        let lying = try ResumeFiles.retargeted(kept, to: server.url("/resumable?length=100000&unsatisfiable=30000"))
        let error = await ResumeFiles.failure(of: Fixtures.session.download(resumingWith: lying, to: .file(destination)))
        #expect(error?.kind == .resumeFailed, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        #expect(error?.downloadResumeData?.bytesOnDisk == 30000, "the partial file stays for another try")
        #expect(try Data(contentsOf: kept.partialFileURL) == Data(TestServer.expectedBytes(count: 30000)))
        kept.discardPartialFile()
        #expect(try ResumeFiles.contents(of: directory).isEmpty)
    }

    /// With `RetryPolicy.resumesDownloads`, a range that ends early is continued by the next
    /// attempt, each from the bytes the last one delivered, until the file is whole.
    @Test func aRetryPolicyResumesAfterARangeThatEndsEarly() async throws {
        let server = try await Fixtures.server()
        let directory = try ResumeFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("chunks.bin")
        var policy = RetryPolicy(
            retryLimit: 4, backoffScale: .milliseconds(1), maximumDelay: .milliseconds(5),
            retryableErrorKinds: RetryPolicy.defaultRetryableErrorKinds.union([.resumeFailed]))
        policy.resumesDownloads = true
        let unique = "/resumable/\(UUID().uuidString)"
        let response = try await Fixtures.session.download(
            server.url("\(unique)?length=50000&drop=20000&shortRange=10000"), to: .file(destination)
        ).intercept(with: policy).validate().response
        #expect(response.attempts == 4, "20000, then three ranges of 10000")
        #expect(try Data(contentsOf: destination) == Data(TestServer.expectedBytes(count: 50000)))
        #expect(try ResumeFiles.contents(of: directory) == ["chunks.bin"])
    }
}
