@testable import Curlew
import Foundation
import Testing

/// Regression tests for a length check found missing by the `framing` fuzz target (Fuzz/):
/// the one or two bytes a stream starts with that could begin a byte order mark (EF, EF BB)
/// are held aside without a length check until more input decides; when the stream ended
/// there, they came back as a last record longer than the maximum instead of failing with
/// bodyTooLarge as any other record would.
@Suite("RecordFramer: bytes held aside as a possible byte order mark")
struct RecordFramerHeldBytesTests {
    @Test func heldBytesOverTheMaximumFailAtTheEnd() async throws {
        await #expect(throws: CurlewError.self) {
            _ = try await SerializationTestSupport.collect(TestChunks([Data([0xEF, 0xBB])]).lines(maximumLineLength: 1))
        }
        do {
            _ = try await SerializationTestSupport.collect(TestChunks([Data([0xEF]), Data([0xBB])]).lines(maximumLineLength: 1))
            Issue.record("a 2-byte last line passed a maximum of 1")
        } catch let error as CurlewError {
            #expect(error.kind == .bodyTooLarge)
        }
    }

    @Test func aByteOrderMarkSplitAcrossChunksStillGoes() async throws {
        // The held bytes were a byte order mark after all: dropped, and the line fits.
        let chunks = TestChunks([Data([0xEF]), Data([0xBB]), Data([0xBF]), Data("a\n".utf8)])
        #expect(try await SerializationTestSupport.collect(chunks.lines(maximumLineLength: 1)) == ["a"])
    }

    @Test func heldBytesWithinTheMaximumAreStillTheLastRecord() throws {
        var framer = RecordFramer(terminator: .byte(0x1E), maximumLength: 2)
        framer.feed(Data([0xEF, 0xBB]))
        #expect(try framer.nextRecord() == nil)
        #expect(try framer.finishCheckingLength() == Data([0xEF, 0xBB]))
    }
}
