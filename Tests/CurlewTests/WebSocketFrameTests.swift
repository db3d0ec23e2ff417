import Foundation
import Testing

@testable import Curlew

/// The frame rules of RFC 6455 as pure logic: encoding and masking, the decoder's refusals,
/// message assembly, UTF-8 and close codes. The connection's behaviour over a socket is in
/// WebSocketFaultTests and the Autobahn run (scripts/autobahn.sh).
@Suite("WebSocket frames")
struct WebSocketFrameTests {
    private func decode(_ bytes: [UInt8], maximumFrameSize: Int = 1 << 20, compression: Bool = false)
        throws(WebSocketViolation) -> WebSocketFrame?
    {
        var decoder = WebSocketFrameDecoder(maximumFrameSize: maximumFrameSize, allowsCompression: compression)
        decoder.append(bytes)
        return try decoder.next()
    }

    private func violation(_ bytes: [UInt8], maximumFrameSize: Int = 1 << 20) -> WebSocketViolation? {
        do {
            _ = try decode(bytes, maximumFrameSize: maximumFrameSize)
            return nil
        } catch {
            return error
        }
    }

    @Test func clientFramesAreMaskedWithTheGivenKey() throws {
        let payload = Array("Hello, WebSocket masking!".utf8)
        var frame: [UInt8] = []
        payload.withUnsafeBytes {
            WebSocketFrame.encode(.text, payload: $0, maskingKey: (0x37, 0xFA, 0x21, 0x3D), into: &frame)
        }
        #expect(frame[0] == 0x81)
        #expect(frame[1] == 0x80 | UInt8(payload.count), "the mask bit is set")
        #expect(Array(frame[2..<6]) == [0x37, 0xFA, 0x21, 0x3D])
        let masked = Array(frame[6...])
        #expect(masked != payload)
        let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        #expect(masked.enumerated().map { $0.element ^ key[$0.offset & 3] } == payload)
    }

    @Test func lengthsUseTheShortestForm() {
        for (count, header) in [(125, 2 + 4), (126, 4 + 4), (65535, 4 + 4), (65536, 10 + 4)] {
            var frame: [UInt8] = []
            [UInt8](repeating: 1, count: count).withUnsafeBytes {
                WebSocketFrame.encode(.binary, payload: $0, maskingKey: (1, 2, 3, 4), into: &frame)
            }
            #expect(frame.count == header + count, "\(count) bytes")
        }
    }

    @Test func maskingKeysComeFromTheGenerator() {
        var generator = SystemRandomNumberGenerator()
        var keys: Set<[UInt8]> = []
        for _ in 0..<64 {
            let key = WebSocketFrame.randomMaskingKey(using: &generator)
            keys.insert([key.0, key.1, key.2, key.3])
        }
        #expect(keys.count > 60, "keys repeat: \(keys.count) distinct of 64")
    }

    @Test func decoderRefusesWhatAServerMayNotSend() {
        #expect(violation([0x83, 0x00])?.code == .protocolError, "reserved opcode 3")
        #expect(violation([0x8B, 0x00])?.code == .protocolError, "reserved control opcode 0xB")
        #expect(violation([0xA1, 0x00])?.code == .protocolError, "RSV2")
        #expect(violation([0x91, 0x00])?.code == .protocolError, "RSV3")
        #expect(violation([0xC1, 0x00])?.code == .protocolError, "RSV1 without permessage-deflate")
        #expect(violation([0x81, 0x81, 1, 2, 3, 4, 0x41])?.code == .protocolError, "masked")
        #expect(violation([0x09, 0x00])?.code == .protocolError, "fragmented ping")
        #expect(violation([0x89, 0x7E, 0x00, 0x7E] + [UInt8](repeating: 0, count: 126))?.code == .protocolError, "126-byte ping")
        #expect(violation([0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 0])?.code == .protocolError, "length with its top bit")
    }

    @Test func oversizedFrameIsRefusedAtItsHeader() {
        // Only the header: the payload never arrives, and is never waited for.
        let tooBig = violation([0x82, 0x7E, 0x01, 0x01], maximumFrameSize: 256)
        #expect(tooBig?.code == .messageTooBig)
        #expect(tooBig?.kind == .bodyTooLarge)
        #expect(violation([0x82, 0x7E, 0x01, 0x00], maximumFrameSize: 256) == nil, "exactly the maximum waits for its payload")
    }

    @Test func framesArriveAcrossReads() throws {
        var decoder = WebSocketFrameDecoder(maximumFrameSize: 1 << 20, allowsCompression: false)
        let bytes: [UInt8] = [0x81, 0x05] + Array("hello".utf8) + [0x8A, 0x00]
        var frames: [WebSocketFrame] = []
        for byte in bytes {
            decoder.append([byte])
            while let frame = try decoder.next() { frames.append(frame) }
        }
        #expect(frames == [WebSocketFrame(.text, Array("hello".utf8)), WebSocketFrame(.pong, [])])
    }

    @Test func assemblerJoinsFragmentsAndKeepsTheRules() throws {
        var assembler = WebSocketMessageAssembler(maximumMessageSize: 10, codec: nil)
        #expect(try assembler.take(WebSocketFrame(.text, Array("ab".utf8), isFinal: false)) == nil)
        #expect(try assembler.take(WebSocketFrame(.continuation, Array("cd".utf8))) == .text(Array("abcd".utf8)))
        #expect(throws: WebSocketViolation.self) { try assembler.take(WebSocketFrame(.continuation, [1])) }
        var second = WebSocketMessageAssembler(maximumMessageSize: 10, codec: nil)
        _ = try second.take(WebSocketFrame(.binary, [1], isFinal: false))
        #expect(throws: WebSocketViolation.self) { try second.take(WebSocketFrame(.binary, [2])) }
        var third = WebSocketMessageAssembler(maximumMessageSize: 10, codec: nil)
        _ = try third.take(WebSocketFrame(.binary, [UInt8](repeating: 0, count: 6), isFinal: false))
        do {
            _ = try third.take(WebSocketFrame(.continuation, [UInt8](repeating: 0, count: 5)))
            Issue.record("an 11-byte message passed a 10-byte limit")
        } catch {
            #expect(error.code == .messageTooBig)
        }
        var exact = WebSocketMessageAssembler(maximumMessageSize: 10, codec: nil)
        #expect(try exact.take(WebSocketFrame(.binary, [UInt8](repeating: 0, count: 10))) != nil)
    }

    @Test func textIsCheckedAcrossFragments() throws {
        var assembler = WebSocketMessageAssembler(maximumMessageSize: 100, codec: nil)
        _ = try assembler.take(WebSocketFrame(.text, [0x63, 0xC3], isFinal: false))
        #expect(try assembler.take(WebSocketFrame(.continuation, [0xA9])) == .text([0x63, 0xC3, 0xA9]))
        var broken = WebSocketMessageAssembler(maximumMessageSize: 100, codec: nil)
        _ = try broken.take(WebSocketFrame(.text, [0x63, 0xC3], isFinal: false))
        do {
            _ = try broken.take(WebSocketFrame(.continuation, [0x41]))
            Issue.record("a broken sequence passed")
        } catch {
            #expect(error.code == .invalidFramePayloadData)
        }
        var unfinished = WebSocketMessageAssembler(maximumMessageSize: 100, codec: nil)
        #expect(throws: WebSocketViolation.self) { try unfinished.take(WebSocketFrame(.text, [0x63, 0xE2, 0x82])) }
    }

    @Test func utf8ValidatorRefusesWhatRFC3629Forbids() {
        func valid(_ bytes: [UInt8]) -> Bool {
            var validator = UTF8Validator()
            return validator.validate(bytes) && validator.isComplete
        }
        #expect(valid(Array("κόσμε €𝄞".utf8)))
        #expect(valid([0xF4, 0x8F, 0xBF, 0xBF]), "U+10FFFF")
        #expect(!valid([0xC0, 0xAF]), "overlong /")
        #expect(!valid([0xE0, 0x80, 0xAF]), "overlong three-byte")
        #expect(!valid([0xF0, 0x80, 0x80, 0xAF]), "overlong four-byte")
        #expect(!valid([0xED, 0xA0, 0x80]), "surrogate U+D800")
        #expect(!valid([0xF4, 0x90, 0x80, 0x80]), "above U+10FFFF")
        #expect(!valid([0xF5, 0x80, 0x80, 0x80]), "F5")
        #expect(!valid([0x80]), "lone continuation")
        #expect(!valid([0xFF]), "FF")
        #expect(!valid([0xE2, 0x82]), "cut sequence")
    }

    @Test func closeCodesAClientMayReceiveOrSend() {
        for code: UInt16 in [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 4999] {
            #expect(WebSocketCloseCode(rawValue: code).mayBeSent, "\(code)")
        }
        for code: UInt16 in [0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535] {
            #expect(!WebSocketCloseCode(rawValue: code).mayBeSent, "\(code)")
        }
    }

    @Test func handshakeAcceptFollowsRFC6455() {
        // The example of RFC 6455 §1.3.
        #expect(WebSocketHandshake.accept(for: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }
}
