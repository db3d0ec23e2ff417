import Curlew
import Foundation
import Testing
import TestServer

/// Responses whose body carries more than one coding: `Content-Encoding: gzip, br` means gzip
/// was applied first, then br, so br is undone first (RFC 9110 §8.4); transfer codings
/// (`Transfer-Encoding: gzip, chunked`) were applied after the content codings and are undone
/// before them (RFC 9112 §6.1). The decompression limit holds for every layer of the stack.
@Suite("Stacked content and transfer codings")
struct StackedCodingTests {
    let session = Fixtures.session
    static let plain = CodedBodyRoutes.plainBody(size: 200_000)

    /// A session with a strict decompression limit.
    private func limitedSession(ratio: Int, minimumSize: Int) -> Session {
        var configuration = SessionConfiguration()
        configuration.decompressionLimit = DecompressionLimit(ratio: ratio, minimumSize: minimumSize)
        return Session(configuration: configuration)
    }

    /// Compares bodies without Swift Testing's element-by-element difference, which takes
    /// minutes for bodies of this size when they differ.
    private func expectBody(
        _ data: Data, _ expected: Data, _ comment: String = "", sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard data != expected else { return }
        let firstDifference = zip(data, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(data.count, expected.count)
        Issue.record(
            "\(comment) got \(data.count) bytes, expected \(expected.count); they differ from byte \(firstDifference)",
            sourceLocation: sourceLocation)
    }

    private func expectFailure(
        _ request: DataRequest, _ kind: CurlewError.Kind, mentioning text: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        do {
            let data = try await request.data()
            Issue.record("expected \(kind), got \(data.count) bytes", sourceLocation: sourceLocation)
        } catch {
            #expect(error.kind == kind, "\(error)", sourceLocation: sourceLocation)
            #expect(error.description.contains(text), "\(error.description)", sourceLocation: sourceLocation)
        }
    }

    /// Two and three codings in every order that matters, an identity layer among them, and
    /// the codings on one field line or on one line each. Decoded in the wrong order, the first
    /// stage would be fed another coding's bytes and fail as corrupt.
    @Test(arguments: [
        "gzip,br", "br,gzip", "deflate,zstd", "zstd,deflate", "gzip,gzip", "zstd,gzip,br", "br,deflate,zstd",
        "gzip,identity,br", "identity,zstd", "raw-deflate,br",
    ])
    func stackedCodingsAreUndoneLastFirst(_ codings: String) async throws {
        let server = try await Fixtures.server()
        for separate in ["0", "1"] {
            let response = try await session.request(server.url("/coded?coding=\(codings)&size=200000&separate=\(separate)")).response
            expectBody(response.value, Self.plain, "\(codings), separate lines: \(separate):")
        }
    }

    @Test func fiveCodingsDecodeAndASixthIsRefused() async throws {
        let server = try await Fixtures.server()
        let five = try await session.request(server.url("/coded?coding=gzip,br,gzip,zstd,deflate&size=200000")).data()
        expectBody(five, Self.plain)
        // A valid body of six layers: refused for their number, before any stage is made.
        await expectFailure(
            session.request(server.url("/coded?coding=gzip,br,gzip,zstd,deflate,gzip&size=2000")), .malformedResponse,
            mentioning: "at most 5")
        // Identity layers do not count: they need no decoder.
        let padded = try await session.request(server.url("/coded?coding=identity,gzip,identity,br,identity,identity,zstd&size=2000")).data()
        expectBody(padded, CodedBodyRoutes.plainBody(size: 2000))
        // Thousands of codings in one field (CVE-2023-23916 in libcurl): a clear error, not
        // gigabytes of decoders and a recursion as deep.
        let many = Array(repeating: "gzip", count: 4000).joined(separator: ",")
        await expectFailure(
            session.request(server.url("/response-headers?Content-Encoding=\(many)")), .malformedResponse, mentioning: "at most 5")
    }

    @Test func anUnknownCodingAnywhereInTheStackFailsClearly() async throws {
        let server = try await Fixtures.server()
        for codings in ["gzip,x-unheard-of", "x-unheard-of,br", "gzip,x-unheard-of,br"] {
            await expectFailure(
                session.request(server.url("/coded?coding=\(codings)&size=2000")), .malformedResponse,
                mentioning: "content coding 'x-unheard-of'")
        }
    }

    /// 8 MiB of zeros, gzip-coded twice: each layer alone expands about 70 and 1,000 times, the
    /// stack about 73,000 times. A limit of 5,000 holds for the stack, not for each layer.
    @Test func theRatioLimitHoldsForTheWholeStack() async throws {
        let server = try await Fixtures.server()
        let strict = limitedSession(ratio: 5000, minimumSize: 1 << 20)
        await expectFailure(
            strict.request(server.url("/coded?coding=gzip,gzip&fill=zeros&size=\(8 << 20)")), .decompressionBomb,
            mentioning: "ratio limit of 5000")
        // The control: one gzip layer of the same zeros (about 1,000 times) passes that limit.
        let single = try await strict.request(server.url("/coded?coding=gzip&fill=zeros&size=\(8 << 20)")).data()
        expectBody(single, Data(count: 8 << 20))
        await strict.shutdown()
    }

    /// An inner gzip stream of 1,000 bytes followed by 8 MiB of zeros, gzip-coded again: the
    /// inner decoder ignores what follows its stream's end, so the body is 1,000 bytes, but
    /// the outer decoder had to produce 8 MiB from 8 KiB. That work counts against the limit:
    /// else a few kilobytes could keep the session's network thread inflating gigabytes.
    @Test func bytesAnInnerLayerThrowsAwayCountAgainstTheLimit() async throws {
        let server = try await Fixtures.server()
        let strict = limitedSession(ratio: 100, minimumSize: 1 << 20)
        await expectFailure(
            strict.request(server.url("/coded?coding=gzip,gzip&size=1000&inner-trailing=\(8 << 20)")), .decompressionBomb,
            mentioning: "gzip-coded layer")
        let control = try await strict.request(server.url("/coded?coding=gzip,gzip&size=1000&inner-trailing=100")).data()
        expectBody(control, CodedBodyRoutes.plainBody(size: 1000))
        await strict.shutdown()
    }

    /// libcurl 7.88 with its content decoding off (as Curlew runs it) removes the chunked
    /// framing of `Transfer-Encoding: gzip, chunked` and hands over the rest still gzip-coded.
    @Test func transferCodingsAreUndoneBeforeContentCodings() async throws {
        let server = try await Fixtures.server()
        let transferOnly = try await session.request(server.url("/coded?coding=&transfer=gzip&size=200000")).data()
        expectBody(transferOnly, Self.plain)
        let both = try await session.request(server.url("/coded?coding=br&transfer=gzip&size=200000")).data()
        expectBody(both, Self.plain)
        let stacked = try await session.request(server.url("/coded?coding=zstd&transfer=deflate,gzip&size=200000")).data()
        expectBody(stacked, Self.plain)
        await expectFailure(
            session.request(server.url("/coded?coding=gzip&transfer=x-unheard-of&size=2000")), .malformedResponse,
            mentioning: "transfer coding 'x-unheard-of'")
    }

    /// Without automatic decompression the content coding stays (the caller asked for the
    /// coded representation), but a transfer coding is still removed: it is not part of it.
    @Test func transferCodingsAreUndoneEvenWithoutAutomaticDecompression() async throws {
        let server = try await Fixtures.server()
        var configuration = SessionConfiguration()
        configuration.automaticDecompression = false
        let raw = Session(configuration: configuration)
        let coded = try await raw.request(server.url("/coded?coding=gzip&transfer=br&size=200000")).response
        #expect(coded.head.headerFields[.contentEncoding] == "gzip")
        let expected = try await raw.request(server.url("/coded?coding=gzip&size=200000")).data()
        expectBody(coded.value, expected)
        #expect(coded.value != Self.plain)
        await raw.shutdown()
    }
}
