import Foundation
import HTTPTypes
import Testing
import TestServer

@testable import Curlew

@Suite("MultipartFormData")
struct MultipartFormDataTests {
    /// A temporary file with the given contents, removed by the caller.
    static func temporaryFile(_ contents: Data, name: String = "upload.json") throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-mp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try contents.write(to: url)
        return url
    }

    static func remove(_ url: URL) {
        try? FileManager.default.removeItem(at: url.deletingLastPathComponent())
    }

    @Test func exactEncodingOfFieldsAndData() throws {
        var form = try MultipartFormData(boundary: "BOUNDARY")
        try form.append("Ann", withName: "name")
        try form.append(Data("PNGDATA".utf8), withName: "avatar", fileName: "me.png")
        try form.append(Data([0, 1]), withName: "raw", mimeType: "application/x-thing")
        let expected =
            "--BOUNDARY\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nAnn\r\n"
            + "--BOUNDARY\r\nContent-Disposition: form-data; name=\"avatar\"; filename=\"me.png\"\r\n"
            + "Content-Type: image/png\r\n\r\nPNGDATA\r\n"
            + "--BOUNDARY\r\nContent-Disposition: form-data; name=\"raw\"\r\nContent-Type: application/x-thing\r\n\r\n"
            + "\u{0}\u{1}\r\n--BOUNDARY--\r\n"
        let data = try form.encodedData()
        #expect(String(decoding: data, as: UTF8.self) == expected)
        #expect(form.contentLength == Int64(data.count))
        #expect(form.contentType == "multipart/form-data; boundary=BOUNDARY")
        #expect(form.count == 3)
    }

    @Test func emptyFormIsJustTheClosingDelimiter() throws {
        let form = try MultipartFormData(boundary: "b")
        #expect(String(decoding: try form.encodedData(), as: UTF8.self) == "--b--\r\n")
        #expect(form.contentLength == 7)
    }

    @Test func nonASCIINamesAreSentAsUTF8AndQuotesEscaped() throws {
        var form = try MultipartFormData(boundary: "x")
        try form.append("v", withName: "名前 \"q\"")
        try form.append(Data(), withName: "f", fileName: "résumé \"final\".pdf")
        let text = String(decoding: try form.encodedData(), as: UTF8.self)
        #expect(text.contains("name=\"名前 %22q%22\""))
        #expect(text.contains("filename=\"résumé %22final%22.pdf\"\r\nContent-Type: application/pdf\r\n"))
        #expect(form.contentLength == Int64(try form.encodedData().count))
    }

    @Test(arguments: ["a\r\nContent-Type: text/html", "a\nb", "a\rb", "a\u{0}b"])
    func crLfAndNulInNamesAreRejected(name: String) {
        var form = MultipartFormData()
        let nameError = try? #require(throws: CurlewError.self) { try form.append("v", withName: name) }
        #expect(nameError?.kind == .invalidRequest)
        let fileError = try? #require(throws: CurlewError.self) {
            try form.append(Data(), withName: "ok", fileName: name)
        }
        #expect(fileError?.kind == .invalidRequest)
        #expect(form.count == 0)
    }

    @Test(arguments: ["text/plain\r\nX-Evil: 1", "nonsense", "/x", "x/"])
    func invalidMIMETypesAreRejected(mimeType: String) {
        var form = MultipartFormData()
        #expect(throws: CurlewError.self) { try form.append(Data(), withName: "f", mimeType: mimeType) }
    }

    @Test func randomBoundaries() {
        let first = MultipartFormData().boundary
        let second = MultipartFormData().boundary
        #expect(first != second)
        #expect(first.hasPrefix("curlew-form-"))
        #expect(first.count == 44)
        #expect(first.dropFirst(12).allSatisfy { $0.isHexDigit })
    }

    @Test(arguments: ["", String(repeating: "a", count: 71), "ends with space ", "ä", "semi;colon"])
    func invalidBoundariesAreRejected(boundary: String) {
        #expect(throws: CurlewError.self) { try MultipartFormData(boundary: boundary) }
    }

    @Test func mimeTypeTable() {
        #expect(MIMEType.forFileExtension("PNG") == "image/png")
        #expect(MIMEType.forFileName("archive.tar.gz") == "application/gzip")
        #expect(MIMEType.forFileName("noextension") == "application/octet-stream")
        #expect(MIMEType.forFileName(".bashrc") == "application/octet-stream")
        #expect(MIMEType.forFileName("x.unknownext") == MIMEType.fallback)
    }

    @Test func filePartsInMemoryAndStreamedAreIdentical() async throws {
        let contents = Data((0..<700_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let file = try Self.temporaryFile(contents, name: "data.json")
        defer { Self.remove(file) }
        var form = try MultipartFormData(boundary: "B")
        try form.append("meta", withName: "m")
        try form.append(fileAt: file, withName: "upload")
        try form.append(Data(repeating: 7, count: 300_000), withName: "blob", fileName: "b.bin")

        let inMemory = try form.encodedData()
        #expect(Int64(inMemory.count) == form.contentLength)
        let header = "--B\r\nContent-Disposition: form-data; name=\"upload\"; filename=\"data.json\"\r\n"
            + "Content-Type: application/json\r\n\r\n"
        #expect(inMemory.range(of: Data(header.utf8)) != nil)
        #expect(inMemory.range(of: contents) != nil)

        let small = try form.makeBody()
        guard case .data = small.storage else {
            Issue.record("a form under the threshold is encoded in memory")
            return
        }
        let streamed = try form.makeBody(inMemoryThreshold: 0)
        #expect(streamed.length == form.contentLength)
        #expect(streamed.isReplayable)
        #expect(try await SerializationTestSupport.collect(streamed) == inMemory)
        // Replayable: a second attempt gives the same bytes.
        #expect(try await SerializationTestSupport.collect(streamed) == inMemory)

        var sizes: [Int] = []
        for try await chunk in form.bodySequence() { sizes.append(chunk.count) }
        #expect(sizes.allSatisfy { $0 > 0 && $0 <= MultipartBodySequence.chunkSize })
        #expect(sizes.reduce(0, +) == inMemory.count)
    }

    @Test func encodeIntoSetsBodyAndContentType() throws {
        var request = OutgoingRequest(url: URL(string: "https://h.example/upload")!, method: .post)
        request.headerFields[.contentType] = "multipart/form-data"
        var form = try MultipartFormData(boundary: "zz")
        try form.append("1", withName: "a")
        try form.encode(into: &request)
        #expect(request.headerFields[.contentType] == "multipart/form-data; boundary=zz")
        #expect(request.body?.length == form.contentLength)
    }

    @Test func aFileThatChangesSizeFailsTheUpload() async throws {
        let file = try Self.temporaryFile(Data(repeating: 1, count: 1000))
        defer { Self.remove(file) }
        var form = MultipartFormData()
        try form.append(fileAt: file, withName: "f")
        try Data(repeating: 2, count: 10).write(to: file)
        let inMemory = try? #require(throws: CurlewError.self) { try form.encodedData() }
        #expect(inMemory?.kind == .uploadFailed)
        let body = try form.makeBody(inMemoryThreshold: 0)
        await #expect(throws: CurlewError.self) { try await SerializationTestSupport.collect(body) }

        try Data(repeating: 2, count: 5000).write(to: file)
        do {
            _ = try await SerializationTestSupport.collect(body)
            Issue.record("a grown file must fail the upload")
        } catch let error as CurlewError {
            #expect(error.kind == .uploadFailed)
            #expect(error.message.contains("grew"))
        }
    }

    @Test func missingFilesAndDirectoriesAreRejected() throws {
        var form = MultipartFormData()
        let missing = try? #require(throws: CurlewError.self) {
            try form.append(fileAt: URL(fileURLWithPath: "/nonexistent/\(UUID().uuidString)"), withName: "f")
        }
        #expect(missing?.kind == .fileSystem)
        let directory = try? #require(throws: CurlewError.self) {
            try form.append(fileAt: FileManager.default.temporaryDirectory, withName: "f")
        }
        #expect(directory?.kind == .fileSystem)
        #expect(form.count == 0)
    }

    @Test func streamPartsWithKnownLength() async throws {
        var form = try MultipartFormData(boundary: "S")
        try form.append(length: 6, withName: "s", fileName: "s.txt") {
            TestChunks([Data("abc".utf8), Data(), Data("def".utf8)])
        }
        #expect(form.isStreamed())
        #expect(throws: CurlewError.self) { try form.encodedData() }
        let body = try form.makeBody()
        let bytes = try await SerializationTestSupport.collect(body)
        let expected = "--S\r\nContent-Disposition: form-data; name=\"s\"; filename=\"s.txt\"\r\n"
            + "Content-Type: text/plain\r\n\r\nabcdef\r\n--S--\r\n"
        #expect(String(decoding: bytes, as: UTF8.self) == expected)
        #expect(Int64(bytes.count) == form.contentLength)
    }

    @Test(arguments: [5, 7])
    func streamPartsOfTheWrongLengthFail(declared: Int64) async throws {
        var form = MultipartFormData()
        try form.append(length: declared, withName: "s") { TestChunks([Data("abcdef".utf8)]) }
        do {
            _ = try await SerializationTestSupport.collect(try form.makeBody())
            Issue.record("a stream of the wrong length must fail")
        } catch let error as CurlewError {
            #expect(error.kind == .uploadFailed)
        }
    }

    @Test func aTwoGiBFileStreamsInBoundedMemory() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-big-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("big.iso")
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        let size: UInt64 = 2 << 30
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: size)  // sparse: no disk space used
        try handle.close()

        var form = MultipartFormData()
        try form.append("x", withName: "note")
        try form.append(fileAt: file, withName: "image")
        let body = try form.makeBody()
        #expect(body.length == form.contentLength)
        guard case .stream(_, _, let make) = body.storage else {
            Issue.record("a 2 GiB form must be streamed")
            return
        }
        let before = try ResidentMemory.bytes()
        var peak = before
        var total: Int64 = 0
        var chunks = 0
        let source = try make()
        while let chunk = try await source.next() {
            total += Int64(chunk.count)
            chunks += 1
            if chunks % 512 == 0 { peak = max(peak, try ResidentMemory.bytes()) }
        }
        #expect(total == form.contentLength)
        #expect(total > Int64(size))
        #expect(peak - before < 64 << 20, "resident memory grew by \((peak - before) >> 20) MiB")
    }
}
