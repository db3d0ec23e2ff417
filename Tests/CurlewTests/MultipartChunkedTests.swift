@testable import Curlew
import Foundation
import Testing
import TestServer

/// Multipart forms with a part of unknown length (``MultipartFormData/append(withName:fileName:mimeType:_:)``):
/// sent chunked over HTTP/1.1, checked byte for byte on the wire (``WireServer``) and parsed by
/// the test server.
@Suite("Multipart parts of unknown length, sent chunked")
struct MultipartChunkedTests {
    static let boundary = "curlew-chunked-form"
    static let pieces: [Data] = [
        Data("first line\n".utf8), Data(repeating: UInt8(ascii: "A"), count: 70_000), Data(), Data("last".utf8),
    ]

    private static func form() throws -> MultipartFormData {
        var form = try MultipartFormData(boundary: boundary)
        try form.append("Ann", withName: "name")
        try form.append(withName: "log", fileName: "build.log", mimeType: "text/plain") {
            AsyncStream<Data> { continuation in
                for piece in pieces { continuation.yield(piece) }
                continuation.finish()
            }
        }
        return form
    }

    /// The form's bytes, as RFC 7578 lays them out.
    private static var expectedBody: [UInt8] {
        var text = "--\(boundary)\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nAnn\r\n"
        text += "--\(boundary)\r\nContent-Disposition: form-data; name=\"log\"; filename=\"build.log\"\r\n"
        text += "Content-Type: text/plain\r\n\r\n"
        var bytes = Array(text.utf8)
        for piece in pieces { bytes += piece }
        bytes += Array("\r\n--\(boundary)--\r\n".utf8)
        return bytes
    }

    /// The payload of a chunked body (RFC 9112 §7.1), and whether it ended with the last chunk;
    /// nil when it is not valid chunked coding.
    static func dechunk(_ bytes: ArraySlice<UInt8>) -> (payload: [UInt8], complete: Bool)? {
        var payload: [UInt8] = []
        var index = bytes.startIndex
        while true {
            guard let lineEnd = bytes[index...].firstRange(of: [13, 10]) else { return (payload, false) }
            guard let size = Int(String(decoding: bytes[index..<lineEnd.lowerBound], as: UTF8.self), radix: 16) else { return nil }
            index = lineEnd.upperBound
            if size == 0 { return bytes[index...].starts(with: [13, 10]) ? (payload, true) : (payload, false) }
            guard bytes.endIndex - index >= size + 2 else { return (payload, false) }
            payload += bytes[index..<(index + size)]
            guard bytes[(index + size)..<(index + size + 2)].elementsEqual([13, 10]) else { return nil }
            index += size + 2
        }
    }

    @Test func aStreamPartOfUnknownLengthGoesChunkedAndArrivesByteForByte() async throws {
        let form = try Self.form()
        #expect(form.contentLength == nil)
        let wire = try await WireServer.start()
        var configuration = SessionConfiguration()
        configuration.proxy = .direct
        let session = Session(configuration: configuration)
        async let answer = session.upload(.multipart(form), to: wire.url("/upload")).string()
        let connection = try await wire.nextConnection()
        let headBytes = await connection.readHead()
        let headLength = try #require(WireConnection.headLength(of: headBytes))
        let head = String(decoding: headBytes.prefix(headLength), as: UTF8.self)
        #expect(head.hasPrefix("POST /upload HTTP/1.1\r\n"), "\(head)")
        #expect(head.contains("\r\nTransfer-Encoding: chunked\r\n"), "\(head)")
        #expect(!head.lowercased().contains("content-length"), "\(head)")
        #expect(head.contains("Content-Type: multipart/form-data; boundary=\(Self.boundary)\r\n"), "\(head)")
        if head.lowercased().contains("expect: 100-continue") { try await connection.send("HTTP/1.1 100 Continue\r\n\r\n") }
        let all = await connection.read { bytes in
            Self.dechunk(bytes[(WireConnection.headLength(of: bytes) ?? bytes.count)...])?.complete ?? true
        }
        try await connection.send("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        #expect(try await answer == "ok")
        let decoded = try #require(Self.dechunk(all[headLength...]))
        #expect(decoded.complete)
        #expect(decoded.payload == Self.expectedBody, "\(decoded.payload.count) bytes, expected \(Self.expectedBody.count)")
        await connection.close()
        await session.shutdown()
        await wire.shutdown()
    }

    @Test func theTestServerParsesTheChunkedFormAndARedirectSendsItAgain() async throws {
        let server = try await Fixtures.server()
        var configuration = SessionConfiguration()
        configuration.proxy = .direct
        let session = Session(configuration: configuration)
        // A 307 makes the form go twice: the part's stream is made again for the second hop.
        let target = server.url("/post").absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let data = try await session.upload(
            .multipart(try Self.form()), to: server.url("/redirect-to?status_code=307&url=\(target)")
        ).validate().data()
        let echo = try Fixtures.echo(data)
        #expect(echo.headers["transfer-encoding"] == "chunked", "\(echo.headers)")
        #expect(echo.bodyLength == Self.expectedBody.count)
        #expect(echo.formPairs?.first == ["name", "Ann"], "\(String(describing: echo.formPairs))")
        await session.shutdown()
    }

    @Test func contentHoldingTheCallersBoundaryFailsTheUploadAndTheFormCannotBeEncodedInMemory() async throws {
        let server = try await Fixtures.server()
        var form = try MultipartFormData(boundary: Self.boundary)
        try form.append(withName: "log") {
            AsyncStream<Data> { continuation in
                continuation.yield(Data("before --curlew-chun".utf8))
                continuation.yield(Data("ked-form after".utf8))  // the delimiter split across chunks
                continuation.finish()
            }
        }
        var configuration = SessionConfiguration()
        configuration.proxy = .direct
        let session = Session(configuration: configuration)
        do {
            _ = try await session.upload(.multipart(form), to: server.url("/post")).data()
            Issue.record("a part holding the boundary was sent")
        } catch {
            #expect(error.kind == .invalidRequest, "\(error)")
        }
        #expect(throws: CurlewError.self) { _ = try form.encodedData() }
        await session.shutdown()
    }
}
