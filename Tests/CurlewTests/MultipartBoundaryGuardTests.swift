@testable import Curlew
import Foundation
import Testing

/// Content that holds a caller-chosen boundary would end its part early and start parts of its
/// own (part injection when the content is untrusted), so such content is refused, in memory,
/// in files and in streams, also when the boundary is split across two chunks.
@Suite("Multipart content never holds a caller-chosen boundary")
struct MultipartBoundaryGuardTests {
    static let boundary = "chosen-boundary"
    static let injected = "x\r\n--chosen-boundary\r\nContent-Disposition: form-data; name=\"admin\"\r\n\r\ntrue"

    @Test func inMemoryContentWithTheBoundaryIsRefused() throws {
        var form = try MultipartFormData(boundary: Self.boundary)
        #expect(throws: CurlewError.self) { try form.append(Self.injected, withName: "comment") }
        #expect(throws: CurlewError.self) { try form.append(Data(Self.injected.utf8), withName: "blob") }
        // Content near the boundary but not holding it is fine, and so is the random boundary.
        try form.append("--chosen-boundar", withName: "close")
        var random = MultipartFormData()
        try random.append(Self.injected, withName: "comment")
        #expect(random.count == 1)
    }

    @Test func aStreamSplittingTheBoundaryAcrossChunksFails() async throws {
        var form = try MultipartFormData(boundary: Self.boundary)
        let pieces = [Array("abc\r\n--chosen".utf8), Array("-boundary--\r\n".utf8)]
        let length = Int64(pieces.reduce(0) { $0 + $1.count })
        try form.append(length: length, withName: "s") { ChunkSequence(chunks: pieces) }
        let body = try form.makeBody()
        do {
            _ = try await SerializationTestSupport.collect(body)
            Issue.record("the boundary inside a stream part must fail the body")
        } catch let error as CurlewError {
            #expect(error.kind == .invalidRequest)
            #expect(error.message.contains("boundary"))
        }
    }

    @Test func aFileHoldingTheBoundaryFailsInMemoryAndStreamed() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-boundary-\(UUID().uuidString)")
        try Data(Self.injected.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var form = try MultipartFormData(boundary: Self.boundary)
        try form.append(fileAt: file, withName: "f")
        #expect(throws: CurlewError.self) { try form.encodedData() }
        let body = try form.makeBody(inMemoryThreshold: 0)
        await #expect(throws: CurlewError.self) { try await SerializationTestSupport.collect(body) }
    }
}
