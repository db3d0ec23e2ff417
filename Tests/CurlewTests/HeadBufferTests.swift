import CCurlShims
import Testing

/// The C header callback (`curlew_head_buffer_callback`): it keeps a head's lines, calls back
/// once per blank line, counts every header byte of the hop against the limit, and passes the
/// lines of a hop that wants no more heads.
@Suite struct HeadBufferTests {
    /// Counts the calls at a blank line and answers with `answer`.
    private final class Recorder {
        var heads: [String] = []
        var answer: Int32 = 1
        var buffer: UnsafeMutablePointer<curlew_head_buffer>?
    }

    private static let headEnded: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { context in
        guard let context else { return 0 }
        let recorder = Unmanaged<Recorder>.fromOpaque(context).takeUnretainedValue()
        guard let buffer = recorder.buffer else { return 0 }
        recorder.heads.append(String(decoding: UnsafeRawBufferPointer(start: buffer.pointee.bytes, count: buffer.pointee.count), as: UTF8.self))
        buffer.pointee.count = 0
        return recorder.answer
    }

    /// Feeds `line` as libcurl would; returns what the callback answered.
    private func feed(_ line: String, to buffer: UnsafeMutablePointer<curlew_head_buffer>) -> Int {
        var bytes = Array(line.utf8)
        return bytes.withUnsafeMutableBufferPointer { raw in
            raw.baseAddress!.withMemoryRebound(to: CChar.self, capacity: raw.count) { pointer in
                curlew_head_buffer_callback(pointer, 1, raw.count, UnsafeMutableRawPointer(buffer))
            }
        }
    }

    private func withBuffer(limit: Int, _ body: (UnsafeMutablePointer<curlew_head_buffer>, Recorder) -> Void) throws {
        let recorder = Recorder()
        let context = Unmanaged.passUnretained(recorder).toOpaque()
        let buffer = try #require(curlew_head_buffer_create(limit, Self.headEnded, context))
        recorder.buffer = buffer
        defer {
            curlew_head_buffer_free(buffer)
            withExtendedLifetime(recorder) {}
        }
        body(buffer, recorder)
    }

    @Test func linesAreKeptUntilTheBlankLineAndHandedOverOncePerHead() throws {
        try withBuffer(limit: 1 << 10) { buffer, recorder in
            #expect(feed("HTTP/1.1 100 Continue\r\n", to: buffer) == 23)
            #expect(recorder.heads.isEmpty)
            #expect(feed("\r\n", to: buffer) == 2)
            #expect(feed("HTTP/1.1 200 OK\r\n", to: buffer) == 17)
            #expect(feed("X-A: 1\r\n", to: buffer) == 8)
            #expect(feed("\n", to: buffer) == 1, "a line of LF alone ends a head too")
            #expect(recorder.heads == ["HTTP/1.1 100 Continue\r\n\r\n", "HTTP/1.1 200 OK\r\nX-A: 1\r\n\n"])
            #expect(buffer.pointee.lines == 5)
            #expect(buffer.pointee.hop_bytes == 51)
        }
    }

    @Test func aRefusalFromSwiftAbortsTheTransfer() throws {
        try withBuffer(limit: 1 << 10) { buffer, recorder in
            recorder.answer = 0
            #expect(feed("HTTP/1.1 200 OK\r\n", to: buffer) == 17)
            #expect(feed("\r\n", to: buffer) == 0)
        }
    }

    @Test func theHopsHeaderBytesAreCountedAgainstTheLimit() throws {
        try withBuffer(limit: 40) { buffer, _ in
            #expect(feed("HTTP/1.1 200 OK\r\n", to: buffer) == 17)  // 17
            #expect(feed("X-Twenty-Bytes: 12\r\n", to: buffer) == 20)  // 37
            #expect(buffer.pointee.refused == 0)
            #expect(feed("X: 1\r\n", to: buffer) == 0, "43 bytes: past the limit of 40")
            #expect(buffer.pointee.refused == 1)
            curlew_head_buffer_reset_hop(buffer)
            #expect(buffer.pointee.refused == 0 && buffer.pointee.hop_bytes == 0 && buffer.pointee.count == 0)
            #expect(feed("X: 1\r\n", to: buffer) == 6, "a new hop counts from zero")
        }
    }

    @Test func aHopThatWantsNoMoreHeadsCountsLinesWithoutKeepingThem() throws {
        try withBuffer(limit: 1 << 10) { buffer, recorder in
            buffer.pointee.passing = 1
            #expect(feed("X-Trailer: 1\r\n", to: buffer) == 14)
            #expect(feed("\r\n", to: buffer) == 2)
            #expect(buffer.pointee.count == 0)
            #expect(recorder.heads.isEmpty)
            #expect(buffer.pointee.lines == 2)
            #expect(buffer.pointee.hop_bytes == 16)
        }
    }

    @Test func anOutsizedHeadsRoomIsGivenBackAtTheNextHop() throws {
        try withBuffer(limit: 256 << 10) { buffer, _ in
            let line = "X-Long: " + String(repeating: "v", count: 20 << 10) + "\r\n"
            #expect(feed(line, to: buffer) == line.utf8.count)
            #expect(buffer.pointee.capacity >= line.utf8.count)
            curlew_head_buffer_reset_hop(buffer)
            #expect(buffer.pointee.capacity == 0)
            #expect(feed("X: 1\r\n", to: buffer) == 6)
            #expect(buffer.pointee.capacity == 1024)
            curlew_head_buffer_reset_hop(buffer)
            #expect(buffer.pointee.capacity == 1024, "a usual head's room stays")
        }
    }
}
