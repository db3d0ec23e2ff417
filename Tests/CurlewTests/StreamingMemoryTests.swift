import Foundation
import Testing
import TestServer

@testable import Curlew

/// Pushes hundreds of MiB through the framers from a synthetic source that makes its chunks
/// lazily, and checks that resident memory stays bounded. No network.
@Suite("Streaming memory", .serialized)
struct StreamingMemoryTests {
    typealias Support = SerializationTestSupport

    /// The volume pushed through each framer.
    static let volume = 200 << 20
    /// The most resident memory may grow while streaming.
    static let allowedGrowth = 64 << 20

    struct Record: Decodable, Sendable {
        let id: Int
        let name: String
        let tags: [String]
        let payload: String
    }

    /// Repeats `template` until `repeats` copies have been produced, in chunks of varying
    /// sizes that cut records at arbitrary places. Nothing is produced ahead of demand.
    struct SyntheticStream: AsyncSequence, Sendable {
        let template: Data
        let repeats: Int

        func makeAsyncIterator() -> Iterator { Iterator(template: template, repeats: repeats) }

        struct Iterator: AsyncIteratorProtocol {
            let template: Data
            let repeats: Int
            var produced = 0
            var offset = 0
            var turn = 0
            let sizes = [65_536 + 17, 4_093, 131_071, 1, 16_384]

            mutating func next() async throws -> Data? {
                guard produced < repeats else { return nil }
                turn += 1
                let size = sizes[turn % sizes.count]
                let end = Swift.min(template.count, offset + size)
                // A fresh buffer per chunk, as a network source would hand over.
                let chunk = Data(template[offset..<end])
                offset = end
                if offset == template.count {
                    offset = 0
                    produced += 1
                }
                return chunk
            }
        }
    }

    /// Tracks the peak of resident memory above a baseline.
    struct MemoryProbe {
        let baseline: Int
        var peak = 0
        init() throws { baseline = try ResidentMemory.bytes() }
        mutating func sample() throws { peak = Swift.max(peak, try ResidentMemory.bytes() - baseline) }
    }

    @Test func jsonLinesOf200MiBStayInBoundedMemory() async throws {
        var template = Data()
        var recordsPerTemplate = 0
        while template.count < 256 * 1024 {
            let line = #"{"id":\#(recordsPerTemplate),"name":"record \#(recordsPerTemplate) — ünïcödé","tags":["a","b","c"],"payload":"\#(String(repeating: "x", count: 700 + recordsPerTemplate % 300))"}"#
            template.append(contentsOf: line.utf8)
            template.append(recordsPerTemplate.isMultiple(of: 3) ? Data("\r\n".utf8) : Data("\n".utf8))
            recordsPerTemplate += 1
        }
        let repeats = Self.volume / template.count + 1
        let stream = SyntheticStream(template: template, repeats: repeats)

        var probe = try MemoryProbe()
        var count = 0
        var idSum = 0
        for try await record in stream.decodeStream(Record.self, framing: .jsonLines) {
            count += 1
            idSum += record.id
            if count % 4096 == 0 { try probe.sample() }
        }
        try probe.sample()
        #expect(count == recordsPerTemplate * repeats)
        #expect(idSum == repeats * (recordsPerTemplate * (recordsPerTemplate - 1) / 2))
        #expect(template.count * repeats >= Self.volume)
        #expect(probe.peak < Self.allowedGrowth, "resident memory grew by \(probe.peak >> 20) MiB")
    }

    @Test func serverSentEventsOf200MiBStayInBoundedMemory() async throws {
        var template = Data()
        var eventsPerTemplate = 0
        while template.count < 256 * 1024 {
            let data = String(repeating: "y", count: 500 + eventsPerTemplate % 400)
            let event = ": comment \(eventsPerTemplate)\nevent: tick\nid: \(eventsPerTemplate)\ndata: {\"n\":\(eventsPerTemplate)}\ndata: \(data)\n\n"
            template.append(contentsOf: (eventsPerTemplate.isMultiple(of: 2) ? event : event.replacingOccurrences(of: "\n", with: "\r\n")).utf8)
            eventsPerTemplate += 1
        }
        let repeats = Self.volume / template.count + 1
        let stream = SyntheticStream(template: template, repeats: repeats)

        var probe = try MemoryProbe()
        var count = 0
        var lastID: String?
        for try await event in stream.serverSentEvents {
            count += 1
            lastID = event.id
            if event.event != "tick" || !event.data.hasPrefix("{\"n\":") {
                Issue.record("unexpected event \(event.event): \(event.data.prefix(40))")
                break
            }
            if count % 4096 == 0 { try probe.sample() }
        }
        try probe.sample()
        #expect(count == eventsPerTemplate * repeats)
        #expect(lastID == String(eventsPerTemplate - 1))
        #expect(probe.peak < Self.allowedGrowth, "resident memory grew by \(probe.peak >> 20) MiB")
    }

    @Test func linesOf200MiBStayInBoundedMemory() async throws {
        var template = Data()
        var linesPerTemplate = 0
        while template.count < 256 * 1024 {
            template.append(contentsOf: "line \(linesPerTemplate) \(String(repeating: "z", count: 80 + linesPerTemplate % 50))\n".utf8)
            linesPerTemplate += 1
        }
        let repeats = Self.volume / template.count + 1
        var probe = try MemoryProbe()
        var count = 0
        for try await line in SyntheticStream(template: template, repeats: repeats).lines {
            count += 1
            if !line.hasPrefix("line ") {
                Issue.record("unexpected line \(line.prefix(40))")
                break
            }
            if count % 16_384 == 0 { try probe.sample() }
        }
        try probe.sample()
        #expect(count == linesPerTemplate * repeats)
        #expect(probe.peak < Self.allowedGrowth, "resident memory grew by \(probe.peak >> 20) MiB")
    }
}
