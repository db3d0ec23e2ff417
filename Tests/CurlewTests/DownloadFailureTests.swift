import Curlew
import Foundation
import HTTPTypes
import Testing
import TestServer

/// A download that fails — validation included — leaves nothing of its own at the destination
/// and no temporary file beside it, and never disturbs a file that was there before.
@Suite("Download failures leave nothing")
struct DownloadFailureTests {
    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-dlfail-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private func contents(of directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    @Test(arguments: ["file", "directory", "custom"])
    func aValidatedTeapotLeavesNothing(destinationKind: String) async throws {
        let server = try await Fixtures.server()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination: DownloadDestination = switch destinationKind {
        case "file": .file(directory.appendingPathComponent("teapot.json"))
        case "directory": .directory(directory)
        default: .custom { name, _ in directory.appendingPathComponent("custom-\(name)") }
        }
        let error = await #expect(throws: CurlewError.self) {
            _ = try await Fixtures.session.download(server.url("/status/418"), to: destination).validate().fileURL()
        }
        #expect(error?.kind == .unacceptableStatus)
        #expect(try contents(of: directory) == [])
    }

    @Test func aServerErrorGivenUpOnByTheRetryPolicyLeavesNothing() async throws {
        let server = try await Fixtures.server()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let session = Session(interceptors: [RetryPolicy(retryLimit: 1, backoffScale: .milliseconds(1))])
        defer { Task { await session.shutdown() } }
        let destination = directory.appendingPathComponent("error.json")
        let error = await #expect(throws: CurlewError.self) {
            _ = try await session.download(server.url("/status/500"), to: .file(destination)).validate().fileURL()
        }
        #expect(error?.kind == .retryLimitExceeded)
        #expect(error?.status?.code == 500)
        #expect(try contents(of: directory) == [])
    }

    @Test func aRejectedDownloadKeepsThePreviousFileIntact() async throws {
        let server = try await Fixtures.server()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("kept.bin")
        try Data("previous".utf8).write(to: destination)
        let error = await #expect(throws: CurlewError.self) {
            _ = try await Fixtures.session.download(server.url("/status/418"), to: .file(destination, options: [.removePreviousFile]))
                .validate().fileURL()
        }
        #expect(error?.kind == .unacceptableStatus)
        #expect(try contents(of: directory) == ["kept.bin"], "no temporary file stays beside it")
        #expect(try Data(contentsOf: destination) == Data("previous".utf8), "a rejected download replaces nothing")
    }

    @Test func aTransportFailureKeepsThePreviousFileIntact() async throws {
        let server = try await Fixtures.server()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("kept.bin")
        try Data("previous".utf8).write(to: destination)
        let error = await #expect(throws: CurlewError.self) {
            _ = try await Fixtures.session.download(
                server.url("/fault/close-mid-body?length=100000&send=5000"), to: .file(destination, options: [.removePreviousFile])
            ).fileURL()
        }
        #expect(error?.kind == .connectionClosedMidBody)
        #expect(try contents(of: directory) == ["kept.bin"])
        #expect(try Data(contentsOf: destination) == Data("previous".utf8))
    }
}
