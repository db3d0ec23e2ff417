import Foundation
import Testing

@testable import Curlew

@Suite("JSON stream decoding")
struct JSONStreamDecodingTests {
    typealias Support = SerializationTestSupport

    struct Entry: Decodable, Sendable, Equatable {
        let level: String
        let message: String
    }

    let ndjson = #"""
        {"level":"info","message":"started"}
        {"level":"warn","message":"disk \"/\" at 91%"}

           
        {"level":"error","message":"naïve ☕"}
        """#

    let entries = [
        Entry(level: "info", message: "started"), Entry(level: "warn", message: "disk \"/\" at 91%"),
        Entry(level: "error", message: "naïve ☕"),
    ]

    @Test func jsonLinesInAnyChunking() async throws {
        let bytes = Array(ndjson.utf8)
        for size in [1, 2, 3, 7, 64, bytes.count] {
            let decoded = try await Support.collect(TestChunks(ndjson, chunkSize: size).decodeStream(Entry.self))
            #expect(decoded == entries, "chunk size \(size)")
        }
        for cut in 0...bytes.count {
            let decoded = try await Support.collect(TestChunks(bytes, cuts: [cut]).decodeStream(Entry.self, framing: .jsonLines))
            #expect(decoded == entries, "cut at \(cut)")
        }
    }

    @Test func crlfAndTrailingNewline() async throws {
        let text = ndjson.replacingOccurrences(of: "\n", with: "\r\n") + "\r\n"
        #expect(try await Support.collect(TestChunks(text, chunkSize: 5).decodeStream(Entry.self)) == entries)
    }

    @Test func scalarsAndArraysAsRecords() async throws {
        let decoded = try await Support.collect(TestChunks("1\n[2,3]\n\"x\"\nnull\n", chunkSize: 3).decodeStream(JSON.self))
        #expect(decoded == [1, [2, 3], "x", nil])
    }

    @Test func aBadRecordEndsTheStreamWithItsLineNumber() async throws {
        let text = #"{"level":"info","message":"a"}"# + "\n\n" + #"{"level":"info"}"# + "\n" + #"{"level":"x","message":"never"}"#
        let url = URL(string: "https://h.example/stream")!
        var iterator = TestChunks(text, chunkSize: 4).decodeStream(Entry.self, url: url).makeAsyncIterator()
        #expect(try await iterator.next() == Entry(level: "info", message: "a"))
        do {
            _ = try await iterator.next()
            Issue.record("a record without `message` must fail")
        } catch let error as CurlewError {
            #expect(error.kind == .serializationFailed)
            #expect(error.message.contains("line 3"))
            #expect(error.url == url)
            #expect(error.underlying is DecodingError)
        }
    }

    @Test func malformedJSONIsASerializationError() async throws {
        await #expect(throws: CurlewError.self) {
            _ = try await Support.collect(TestChunks("{\"a\":\n", chunkSize: 2).decodeStream(JSON.self))
        }
    }

    @Test func recordLengthLimit() async throws {
        let text = "[1]\n[" + String(repeating: "1,", count: 100) + "1]\n"
        let framing = StreamFraming.jsonLines.maximumRecordLength(64)
        var iterator = TestChunks(text, chunkSize: 16).decodeStream(JSON.self, framing: framing).makeAsyncIterator()
        #expect(try await iterator.next() == [1])
        do {
            _ = try await iterator.next()
            Issue.record("a 203-byte record must exceed 64 bytes")
        } catch let error as CurlewError {
            #expect(error.kind == .bodyTooLarge)
        }
        #expect(StreamFraming.jsonTextSequence.maximumRecordLength(10).maximumRecordLength == 10)
    }

    @Test func jsonTextSequences() async throws {
        let rs = "\u{1E}"
        let text = rs + #"{"level":"a","message":"1"}"# + "\n" + rs + "\n" + rs + #"{"level":"b","message":"line\nbreak"}"# + "\n"
        let decoded = try await Support.collect(TestChunks(text, chunkSize: 3).decodeStream(Entry.self, framing: .jsonTextSequence))
        #expect(decoded == [Entry(level: "a", message: "1"), Entry(level: "b", message: "line\nbreak")])
    }
}
