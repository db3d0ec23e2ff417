import Curlew
import CurlewOpenAPI
import Foundation
import HTTPTypes
import OpenAPIRuntime
import TestServer
import Testing

/// The length `CurlewTransport` reports for a response body, against the in-process test
/// server's `/coded` route: it must count the bytes the body yields. When Curlew decodes a
/// content coding, `Content-Length` counts the coded bytes; a consumer that trusted it (to
/// size a buffer, to forward the body with that length, to stop reading) would cut the decoded
/// body short.
@Suite("CurlewTransport reports the length of the bytes its body yields")
struct CurlewTransportBodyLengthTests {
    static let size = 200_000
    static let plain = CodedBodyRoutes.plainBody(size: size)

    /// What the transport returns for `GET pathAndQuery` on `server`: the head, the body's
    /// reported length, and every byte of the body.
    private func fetch(
        _ pathAndQuery: String, from server: TestServer, session: Session
    ) async throws -> (head: HTTPResponse, length: HTTPBody.Length, bytes: Data) {
        let transport = CurlewTransport(session: session)
        let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: pathAndQuery)
        let (head, body) = try await transport.send(request, body: nil, baseURL: server.url("/"), operationID: "coded")
        let received = try #require(body)
        let bytes = try await Data(collecting: received, upTo: 64 << 20)
        return (head, received.length, bytes)
    }

    /// Whether `bytes` are the plain body (compared as one Boolean: Swift Testing's difference
    /// of two bodies this large takes minutes).
    private func isPlain(_ bytes: Data) -> Bool { bytes == Self.plain }

    /// A body sent with `Content-Length` and decoded by Curlew: its length is unknown, and its
    /// bytes are the decoded ones. The identity control keeps its known length.
    @Test(arguments: ["gzip", "br", "gzip,br"])
    func aDecodedBodyHasNoKnownLength(_ codings: String) async throws {
        let server = try await TestServer.start()
        let session = Session()
        let coded = try await fetch("/coded?coding=\(codings)&size=\(Self.size)&separate=1", from: server, session: session)
        let sentLength = try #require(coded.head.headerFields[.contentLength].flatMap(Int.init))
        #expect(sentLength != Self.size, "the server's length counts the coded bytes")
        #expect(coded.length == .unknown)
        #expect(isPlain(coded.bytes), "got \(coded.bytes.count) bytes")

        let identity = try await fetch("/coded?coding=identity&size=\(Self.size)", from: server, session: session)
        #expect(identity.length == .known(Int64(Self.size)))
        #expect(isPlain(identity.bytes), "got \(identity.bytes.count) bytes")
        await session.shutdown()
        try await server.shutdown()
    }

    /// Without automatic decompression the body is the coded bytes, which `Content-Length`
    /// counts: the length is known again.
    @Test func anUndecodedBodyKeepsItsContentLength() async throws {
        let server = try await TestServer.start()
        var configuration = SessionConfiguration()
        configuration.automaticDecompression = false
        let session = Session(configuration: configuration)
        let coded = try await fetch("/coded?coding=gzip&size=\(Self.size)", from: server, session: session)
        let sentLength = try #require(coded.head.headerFields[.contentLength].flatMap(Int64.init))
        #expect(coded.length == .known(sentLength))
        #expect(Int64(coded.bytes.count) == sentLength)
        #expect(!isPlain(coded.bytes))
        await session.shutdown()
        try await server.shutdown()
    }

    /// `Content-Length` beside `Transfer-Encoding` frames nothing (RFC 9112 §6.3): the chunks
    /// do, and a transfer coding is decoded besides. Reported as known, it would say 10 bytes
    /// of a body of 200,000.
    @Test(arguments: ["", "gzip"])
    func aContentLengthBesideTransferEncodingIsNotTheLength(_ transfer: String) async throws {
        let server = try await TestServer.start()
        let session = Session()
        let response = try await fetch(
            "/coded?coding=identity&transfer=\(transfer)&chunked=1&length=10&size=\(Self.size)", from: server, session: session)
        #expect(response.head.headerFields[.contentLength] == "10")
        #expect(response.length == .unknown)
        #expect(isPlain(response.bytes), "got \(response.bytes.count) bytes")
        await session.shutdown()
        try await server.shutdown()
    }
}
