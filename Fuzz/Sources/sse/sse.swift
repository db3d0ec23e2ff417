// Fuzz target `sse`: ServerSentEventSequence (RecordFramer in any-newline mode plus
// ServerSentEventParser), through its public API.
//
// Input: byte 0 picks the maximum event length; bytes 1-8 seed a random chunking; the rest is
// the event stream.
//
// Properties: whether the stream comes whole, one byte at a time or cut at random (empty
// chunks included), the events are exactly those of a reference interpreter written from the
// WHATWG "interpreting an event stream" rules (BOM, CR / LF / CRLF, comments, one space after
// the colon, data lines joined with LF, id without NUL, digits-only retry, last event ID and
// retry carried over, the unfinished last event dropped), and the stream fails with
// bodyTooLarge exactly after the same events when a line or an event exceeds the maximum.
@testable import Curlew
import Foundation
import FuzzSupport

enum Item: Equatable, Sendable {
    case event(ServerSentEvent)
    case failed(CurlewError.Kind)
}

/// The WHATWG rules, over bytes, written independently of ServerSentEventParser.
func reference(_ input: [UInt8], maximum: Int) -> [Item] {
    var bytes = ArraySlice(input)
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
    // Lines: CRLF, LF or CR end a line; a last line with no terminator is still a line (it
    // can only add to an event that is then dropped, but it counts against the maximum).
    var lines: [ArraySlice<UInt8>] = []
    var start = bytes.startIndex
    var index = start
    while index < bytes.endIndex {
        let byte = bytes[index]
        if byte == 0x0A || byte == 0x0D {
            lines.append(bytes[start..<index])
            index += 1
            if byte == 0x0D, index < bytes.endIndex, bytes[index] == 0x0A { index += 1 }
            start = index
        } else {
            index += 1
        }
    }
    if start < bytes.endIndex { lines.append(bytes[start...]) }

    var items: [Item] = []
    var data: [String] = []
    var dataLength = 0
    var eventType = ""
    var lastID: String?
    var retry: Duration?
    for line in lines {
        guard line.count <= maximum else { return items + [.failed(.bodyTooLarge)] }
        if line.isEmpty {
            if !data.isEmpty {
                let event = ServerSentEvent(
                    event: eventType.isEmpty ? "message" : eventType, data: data.joined(separator: "\n"),
                    id: lastID, retry: retry)
                items.append(.event(event))
            }
            data = []
            dataLength = 0
            eventType = ""
            continue
        }
        if line.first == UInt8(ascii: ":") { continue }
        var name = line
        var value = ArraySlice<UInt8>()
        if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            name = line[..<colon]
            value = line[(colon + 1)...]
            if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        }
        let text = String(decoding: value, as: UTF8.self)
        switch Array(name) {
        case Array("event".utf8):
            eventType = text
            guard dataLength + eventType.utf8.count <= maximum else { return items + [.failed(.bodyTooLarge)] }
        case Array("data".utf8):
            data.append(text)
            dataLength += value.count + 1
            guard dataLength + eventType.utf8.count <= maximum else { return items + [.failed(.bodyTooLarge)] }
        case Array("id".utf8):
            if !value.contains(0) { lastID = text }
        case Array("retry".utf8):
            if !value.isEmpty, value.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                var milliseconds: Int64? = 0
                for digit in value {
                    let (times, overflow1) = milliseconds?.multipliedReportingOverflow(by: 10) ?? (0, true)
                    let (sum, overflow2) = times.addingReportingOverflow(Int64(digit - 0x30))
                    milliseconds = overflow1 || overflow2 ? nil : sum
                }
                if let milliseconds { retry = .milliseconds(milliseconds) }
            }
        default:
            break
        }
    }
    return items
}

func collect(_ chunks: [Data], maximum: Int) -> [Item] {
    runBlocking {
        var items: [Item] = []
        do {
            for try await event in ChunkSequence(chunks).serverSentEvents(maximumEventLength: maximum) {
                items.append(.event(event))
            }
        } catch {
            items.append(.failed((error as? CurlewError)?.kind ?? .transport))
        }
        return items
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let lengthByte = Int(input.byte())
    let maximum = lengthByte >= 128 ? ServerSentEventSequence<ChunkSequence>.defaultMaximumEventLength : 1 + lengthByte % 64
    var seed: UInt64 = 0
    for _ in 0..<8 { seed = seed << 8 | UInt64(input.byte()) }
    let stream = input.rest()

    let expected = reference(stream, maximum: maximum)
    for cuts in chunkings(count: stream.count, seed: seed) {
        let got = collect(chunks(of: stream, cuts: cuts), maximum: maximum)
        check(got == expected, "max \(maximum) cut \(cuts.map(\.count)):\n got \(got)\n expected \(expected)")
    }
    return 0
}

/// The executable's entry point (SwiftPM aliases `main` to it): libFuzzer's driver.
@_cdecl("sse_main")
public func sseMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data) ?? UnsafeRawPointer(bitPattern: 1)!, size) }
}
