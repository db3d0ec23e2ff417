@testable import Curlew
import Foundation
import Testing

/// Reading HAR files (bounded, clear errors) and the timings rule, without a network.
@Suite("HAR archive: reading, errors, timings")
struct HARArchiveTests {
    static let minimalEntry = #"""
        {"startedDateTime":"2024-05-01T10:00:00.123+02:00","time":12.5,
         "request":{"method":"GET","url":"http://a.example/x","httpVersion":"HTTP/1.1","cookies":[],"headers":[],
                    "queryString":[],"headersSize":-1,"bodySize":0},
         "response":{"status":200,"statusText":"OK","httpVersion":"HTTP/1.1","cookies":[],"headers":[],
                     "content":{"size":0,"mimeType":""},"redirectURL":"","headersSize":-1,"bodySize":0},
         "cache":{},"timings":{"send":0,"wait":10,"receive":2.5},"_error":"x"}
        """#

    static func archive(entries: String, version: String = "1.2") -> Data {
        Data(#"{"log":{"version":"\#(version)","creator":{"name":"t","version":"1"},"entries":[\#(entries)]}}"#.utf8)
    }

    @Test func aMinimalFileIsRead() throws {
        let archive = try HARArchive(data: Self.archive(entries: Self.minimalEntry))
        let entry = try #require(archive.log.entries.first)
        #expect(abs(entry.startedDateTime.timeIntervalSince1970 - 1_714_550_400.123) < 0.0005)
        #expect(entry.timings.dns == nil && entry.timings.wait == 10)
        #expect(entry.error == "x")
    }

    @Test func malformedInputGetsAnErrorNamingTheField() throws {
        func message(_ data: Data) -> String? {
            do {
                _ = try HARArchive(data: data)
                return nil
            } catch {
                #expect(error.kind == .serializationFailed)
                return error.message
            }
        }
        #expect(message(Data("{not json".utf8))?.contains("not valid JSON") == true)
        let noURL = Self.minimalEntry.replacingOccurrences(of: #""url":"http://a.example/x","#, with: "")
        #expect(message(Self.archive(entries: noURL)) == "not a HAR file: log.entries[0].request.url: missing")
        let badDate = Self.minimalEntry.replacingOccurrences(of: "2024-05-01T10:00:00.123+02:00", with: "yesterday")
        #expect(message(Self.archive(entries: badDate))?.contains("log.entries[0].startedDateTime") == true)
        let badStatus = Self.minimalEntry.replacingOccurrences(of: #""status":200"#, with: #""status":"200""#)
        #expect(message(Self.archive(entries: badStatus))?.contains("log.entries[0].response.status: expected") == true)
        #expect(message(Self.archive(entries: "", version: "2.0"))?.contains("not 1.x") == true)
    }

    @Test func aFileOverTheLimitIsRefusedBeforeItIsParsed() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-har-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("big.har")
        try Self.archive(entries: Self.minimalEntry).write(to: file)
        #expect(throws: CurlewError.self) { try HARArchive(contentsOf: file, maximumSize: 100) }
        do {
            _ = try HARArchive(contentsOf: file, maximumSize: 100)
        } catch {
            #expect(error.kind == .fileSystem && error.message.contains("more than 100"), "\(error)")
        }
        #expect(try HARArchive(contentsOf: file).log.entries.count == 1)
        do {
            _ = try HARArchive(contentsOf: directory.appendingPathComponent("missing.har"))
            Issue.record("a missing file was read")
        } catch {
            #expect(error.kind == .fileSystem && error.message.contains("no HAR file"))
        }
    }

    static func metrics(dns: Int, connect: Int, tls: Int, firstByte: Int, total: Int, reused: Bool) -> TransferMetrics {
        var metrics = TransferMetrics.zero
        metrics.dnsLookup = .milliseconds(dns)
        metrics.connect = .milliseconds(connect)
        metrics.tlsHandshake = .milliseconds(tls)
        metrics.timeToFirstByte = .milliseconds(firstByte)
        metrics.total = .milliseconds(total)
        metrics.connectionReused = reused
        return metrics
    }

    @Test func timingsSplitLibcurlsCumulativeTimesWithSSLInsideConnect() {
        let tls = HAREntryBuilder.timings(Self.metrics(dns: 5, connect: 15, tls: 40, firstByte: 70, total: 100, reused: false))
        #expect(tls == HARTimings(blocked: -1, dns: 5, connect: 35, send: 0, wait: 30, receive: 30, ssl: 25))
        #expect(tls.total == 100, "ssl is not counted twice")
        let cleartext = HAREntryBuilder.timings(Self.metrics(dns: 1, connect: 3, tls: 0, firstByte: 10, total: 12, reused: false))
        #expect(cleartext == HARTimings(blocked: -1, dns: 1, connect: 2, send: 0, wait: 7, receive: 2, ssl: -1))
        let reused = HAREntryBuilder.timings(Self.metrics(dns: 0, connect: 0, tls: 0, firstByte: 4, total: 6, reused: true))
        #expect(reused == HARTimings(blocked: -1, dns: -1, connect: -1, send: 0, wait: 4, receive: 2, ssl: -1))
        #expect(HAREntryBuilder.timings(nil).total == 0)
    }

    @Test func anArchiveSurvivesEncodingAndDecoding() throws {
        let archive = try HARArchive(data: Self.archive(entries: Self.minimalEntry))
        let again = try HARArchive(data: try archive.jsonData())
        #expect(again == archive)
        let text = String(decoding: try archive.jsonData(), as: UTF8.self)
        #expect(text.contains(#""startedDateTime" : "2024-05-01T08:00:00.123Z""#), "\(text)")
    }
}
