import Foundation
import Testing

@testable import Curlew

@Suite("Line framing")
struct LineFramingTests {
    typealias Support = SerializationTestSupport

    let text = "a\nbb\r\nccc\n\n€ é\r\nlast"
    let expected = ["a", "bb", "ccc", "", "€ é", "last"]

    @Test func linesWithLFAndCRLFAndAnUnterminatedLastLine() async throws {
        #expect(try await Support.collect(TestChunks([Data(text.utf8)]).lines) == expected)
    }

    @Test func everySplitPointGivesTheSameLines() async throws {
        let bytes = Array(text.utf8)
        for cut in 0...bytes.count {
            let lines = try await Support.collect(TestChunks(bytes, cuts: [cut]).lines)
            #expect(lines == expected, "cut at \(cut)")
        }
        for first in 0...bytes.count {
            for second in first...bytes.count {
                let lines = try await Support.collect(TestChunks(bytes, cuts: [first, second]).lines)
                #expect(lines == expected, "cuts at \(first), \(second)")
            }
        }
    }

    @Test func oneByteChunksAndEmptyChunks() async throws {
        #expect(try await Support.collect(TestChunks(text, chunkSize: 1).lines) == expected)
        let withEmpties = TestChunks([Data(), Data("x\n".utf8), Data(), Data(), Data("y".utf8), Data()])
        #expect(try await Support.collect(withEmpties.lines) == ["x", "y"])
    }

    @Test func aTrailingNewlineGivesNoExtraLine() async throws {
        #expect(try await Support.collect(TestChunks([Data("a\nb\n".utf8)]).lines) == ["a", "b"])
        #expect(try await Support.collect(TestChunks([Data("\n".utf8)]).lines) == [""])
        #expect(try await Support.collect(TestChunks([]).lines) == [])
    }

    @Test func loneCRIsPartOfTheLine() async throws {
        #expect(try await Support.collect(TestChunks([Data("a\rb\nc\r".utf8)]).lines) == ["a\rb", "c"])
    }

    @Test func byteOrderMarkIsDroppedAtTheStartOnly() async throws {
        let bom = Data([0xEF, 0xBB, 0xBF])
        let bytes = Array(bom + Data("x\n".utf8) + bom + Data("y".utf8))
        for cut in 0...bytes.count {
            let lines = try await Support.collect(TestChunks(bytes, cuts: [cut]).lines)
            #expect(lines == ["x", "\u{FEFF}y"], "cut at \(cut)")
        }
        // A stream that stops inside a byte order mark is not UTF-8 text.
        await #expect(throws: CurlewError.self) { _ = try await Support.collect(TestChunks([Data([0xEF, 0xBB])]).lines) }
    }

    @Test func maximumLineLengthIsEnforced() async throws {
        let ok = TestChunks(["12345\n", "123", "45\n"].map { Data($0.utf8) })
        #expect(try await Support.collect(ok.lines(maximumLineLength: 5)) == ["12345", "12345"])
        let url = URL(string: "https://h.example/log")!
        for chunks in [["123456\n"], ["123", "456"], ["12", "34", "5", "6"]] {
            let sequence = TestChunks(chunks.map { Data($0.utf8) }).lines(maximumLineLength: 5, url: url)
            do {
                _ = try await Support.collect(sequence)
                Issue.record("a 6-byte line must exceed a maximum of 5: \(chunks)")
            } catch let error as CurlewError {
                #expect(error.kind == .bodyTooLarge)
                #expect(error.url == url)
                #expect(error.message.contains("5 bytes"))
            }
        }
    }

    @Test func anEndlessLineFailsWithoutGrowingMemory() async throws {
        struct Endless: AsyncSequence, Sendable {
            struct Iterator: AsyncIteratorProtocol {
                var produced = 0
                mutating func next() async throws -> Data? {
                    produced += 1
                    return produced > 10_000 ? nil : Data(repeating: UInt8(ascii: "x"), count: 64 * 1024)
                }
            }
            func makeAsyncIterator() -> Iterator { Iterator() }
        }
        await #expect(throws: CurlewError.self) { _ = try await Support.collect(Endless().lines) }
    }

    @Test func invalidUTF8IsAnError() async throws {
        let sequence = TestChunks([Data("ok\n".utf8), Data([0x66, 0xFF, 0x0A])]).lines
        var iterator = sequence.makeAsyncIterator()
        #expect(try await iterator.next() == "ok")
        do {
            _ = try await iterator.next()
            Issue.record("invalid UTF-8 must fail")
        } catch let error as CurlewError {
            #expect(error.kind == .serializationFailed)
            #expect(error.message.contains("line 2"))
        }
    }

    @Test func multiByteCharactersSplitAcrossChunksSurvive() async throws {
        let bytes = Array("日本語\n😀".utf8)
        for cut in 1..<bytes.count {
            #expect(try await Support.collect(TestChunks(bytes, cuts: [cut]).lines) == ["日本語", "😀"])
        }
    }

    @Test func errorsOfTheBaseSequencePropagate() async throws {
        let sequence = FailingTestChunks(chunks: [Data("a\nb".utf8)]).lines
        var iterator = sequence.makeAsyncIterator()
        #expect(try await iterator.next() == "a")
        await #expect(throws: TestStreamFailure.self) { _ = try await iterator.next() }
    }

    @Test func recordsInsideAChunkAreSlicesNotCopies() throws {
        var framer = RecordFramer(terminator: .newline, maximumLength: 100)
        let chunk = Data("abc\ndef\n".utf8)
        framer.feed(chunk)
        let first = try framer.nextRecord()
        let second = try framer.nextRecord()
        #expect(first.map { Array($0) } == Array("abc".utf8))
        #expect(second.map { Array($0) } == Array("def".utf8))
        #expect(second?.startIndex == 4)
        #expect(try framer.nextRecord() == nil)
        #expect(framer.finish() == nil)
    }
}
