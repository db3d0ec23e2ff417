import Foundation
import Testing

@testable import Curlew

@Suite("Server-Sent Events")
struct ServerSentEventTests {
    typealias Support = SerializationTestSupport

    func events(_ text: String, chunkSize: Int = 1 << 20) async throws -> [ServerSentEvent] {
        try await Support.collect(TestChunks(text, chunkSize: chunkSize).serverSentEvents)
    }

    @Test func multiLineDataJoinsWithLF() async throws {
        let stream = "data: YHOO\ndata: +2\ndata: 10\n\n"
        #expect(try await events(stream) == [ServerSentEvent(data: "YHOO\n+2\n10")])
    }

    @Test func idsPersistAndAnEmptyIDResetsIt() async throws {
        let stream = ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n"
        #expect(
            try await events(stream) == [
                ServerSentEvent(data: "first event", id: "1"),
                ServerSentEvent(data: "second event", id: ""),
                ServerSentEvent(data: " third event", id: ""),
            ])
    }

    @Test func emptyDataAndUnterminatedLastEvent() async throws {
        let stream = "data\n\ndata\ndata\n\ndata:"
        #expect(try await events(stream) == [ServerSentEvent(data: ""), ServerSentEvent(data: "\n")])
    }

    @Test func colonSpaceIsOptional() async throws {
        #expect(try await events("data:test\n\ndata: test\n\n") == [ServerSentEvent(data: "test"), ServerSentEvent(data: "test")])
    }

    @Test func eventTypeRetryAndUnknownFields() async throws {
        let stream = """
            event: update
            retry: 2500
            foo: bar
            data: {"x":1}

            data: plain
            retry: soon

            event: ping

            retry: 10
            data: after
            id: 7
            """ + "\n\n"
        let parsed = try await events(stream)
        #expect(
            parsed == [
                ServerSentEvent(event: "update", data: #"{"x":1}"#, retry: .milliseconds(2500)),
                ServerSentEvent(data: "plain", retry: .milliseconds(2500)),
                ServerSentEvent(data: "after", id: "7", retry: .milliseconds(10)),
            ])
    }

    @Test func idWithNULIsIgnored() async throws {
        #expect(try await events("id: 1\ndata: a\n\nid: 2\u{0}x\ndata: b\n\n").map(\.id) == ["1", "1"])
    }

    @Test func crLfAndLoneCRLineEndings() async throws {
        let expected = [ServerSentEvent(event: "e", data: "a\nb"), ServerSentEvent(data: "c")]
        for stream in [
            "event: e\r\ndata: a\r\ndata: b\r\n\r\ndata: c\r\n\r\n",
            "event: e\rdata: a\rdata: b\r\rdata: c\r\r",
            "event: e\ndata: a\rdata: b\r\n\ndata: c\n\r",
        ] {
            #expect(try await events(stream) == expected, "\(stream.debugDescription)")
            let bytes = Array(stream.utf8)
            for cut in 0...bytes.count {
                let split = try await Support.collect(TestChunks(bytes, cuts: [cut]).serverSentEvents)
                #expect(split == expected, "\(stream.debugDescription) cut at \(cut)")
            }
        }
    }

    @Test func crAtTheEndOfAChunkDoesNotDispatchEarly() async throws {
        let sequence = TestChunks([Data("data: a\r".utf8), Data("\ndata: b\r".utf8), Data("\n\r".utf8), Data("\n".utf8)])
        #expect(try await Support.collect(sequence.serverSentEvents) == [ServerSentEvent(data: "a\nb")])
    }

    @Test func byteOrderMarkAndNonASCII() async throws {
        let stream = "\u{FEFF}data: ☕ naïve\n\n"
        #expect(try await events(stream, chunkSize: 1) == [ServerSentEvent(data: "☕ naïve")])
        let invalid = TestChunks([Data("data: a".utf8) + Data([0xFF]) + Data("\n\n".utf8)])
        #expect(try await Support.collect(invalid.serverSentEvents) == [ServerSentEvent(data: "a\u{FFFD}")])
    }

    @Test func oneByteChunksMatchWholeChunks() async throws {
        let stream = ": c\nevent: x\ndata: 1\ndata: 2\nid: 9\n\ndata: 3\n\n"
        #expect(try await events(stream, chunkSize: 1) == events(stream))
        #expect(try await events(stream).count == 2)
    }

    @Test func oversizedEventsFail() async throws {
        let stream = "data: 12345\ndata: 12345\n\n"
        let ok = try await Support.collect(TestChunks(stream, chunkSize: 4).serverSentEvents(maximumEventLength: 12))
        #expect(ok == [ServerSentEvent(data: "12345\n12345")])
        do {
            _ = try await Support.collect(TestChunks(stream, chunkSize: 4).serverSentEvents(maximumEventLength: 11))
            Issue.record("a 12-byte event must exceed 11")
        } catch let error as CurlewError {
            #expect(error.kind == .bodyTooLarge)
        }
        let longLine = "data: " + String(repeating: "x", count: 100) + "\n\n"
        await #expect(throws: CurlewError.self) {
            _ = try await Support.collect(TestChunks(longLine, chunkSize: 7).serverSentEvents(maximumEventLength: 50))
        }
    }

    @Test func commentsOnlyStreamHasNoEvents() async throws {
        #expect(try await events(": keep-alive\n\n: keep-alive\n\n").isEmpty)
    }

    @Test func manyCROnlyEventsInOneChunk() async throws {
        let stream = String(repeating: "data: x\r\r", count: 20_000)
        let events = try await events(stream)
        #expect(events.count == 20_000)
        #expect(events.allSatisfy { $0.data == "x" })
    }
}
