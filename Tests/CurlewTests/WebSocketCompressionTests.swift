import Foundation
import Testing

@testable import Curlew

/// permessage-deflate (RFC 7692) as pure logic: the negotiation and the codec's contexts and
/// limits. The Autobahn run's cases 12.* and 13.* check it against another implementation.
@Suite("WebSocket compression")
struct WebSocketCompressionTests {
    private func roundTrip(_ codec: WebSocketDeflateCodec, _ text: String) throws -> [UInt8] {
        let compressed = try #require(Array(text.utf8).withUnsafeBytes { codec.compress($0) })
        var inflated: [UInt8] = []
        // The same codec inflates: its compressor and inflater are separate streams.
        try codec.decompress(compressed, isLast: true, limit: 1 << 20, into: &inflated)
        #expect(inflated == Array(text.utf8))
        return compressed
    }

    @Test func contextTakeoverKeepsTheWindowAndNoTakeoverResetsIt() throws {
        let text = "the quick brown fox jumps over the lazy dog, again and again"
        let keeping = WebSocketDeflateCodec(NegotiatedCompression())
        let first = try roundTrip(keeping, text)
        let second = try roundTrip(keeping, text)
        #expect(second.count < first.count, "a repeated message refers back to the first")
        var parameters = NegotiatedCompression()
        parameters.clientNoContextTakeover = true
        parameters.serverNoContextTakeover = true
        let resetting = WebSocketDeflateCodec(parameters)
        let again = try roundTrip(resetting, text)
        // Nothing of one message is left to shape the next (a compression oracle across messages).
        #expect(try roundTrip(resetting, text) == again)
    }

    @Test func inflatingStopsAtTheMessageLimit() throws {
        let codec = WebSocketDeflateCodec(NegotiatedCompression())
        let bomb = try #require([UInt8](repeating: 0, count: 8 << 20).withUnsafeBytes { codec.compress($0) })
        #expect(bomb.count < 64 << 10)
        var inflated: [UInt8] = []
        do {
            try codec.decompress(bomb, isLast: true, limit: 1 << 20, into: &inflated)
            Issue.record("8 MiB inflated under a 1 MiB limit")
        } catch {
            #expect(error.code == .messageTooBig)
            #expect(error.kind == .decompressionBomb)
        }
        #expect(inflated.count <= 1 << 20)
    }

    @Test func negotiationTakesOnlyWhatWasOffered() throws {
        let offer = WebSocketCompression()
        #expect(try NegotiatedCompression.negotiate(response: [], offer: offer) == nil)
        let plain = try #require(try NegotiatedCompression.negotiate(response: ["permessage-deflate"], offer: offer))
        #expect(plain == NegotiatedCompression())
        let tuned = try #require(try NegotiatedCompression.negotiate(
            response: ["permessage-deflate; client_max_window_bits=9; server_no_context_takeover"], offer: offer))
        #expect(tuned.clientMaxWindowBits == 9)
        #expect(tuned.serverNoContextTakeover)
        for refused in [
            "permessage-deflate; client_max_window_bits=7", "permessage-deflate; server_max_window_bits=16",
            "permessage-deflate; unknown", "permessage-deflate; server_no_context_takeover; server_no_context_takeover",
            "permessage-deflate; server_no_context_takeover=1", "x-webkit-deflate-frame", "permessage-deflate, permessage-deflate",
        ] {
            #expect(throws: WebSocketViolation.self, "\(refused)") {
                try NegotiatedCompression.negotiate(response: [refused], offer: offer)
            }
        }
        #expect(throws: WebSocketViolation.self, "not offered") {
            try NegotiatedCompression.negotiate(response: ["permessage-deflate"], offer: nil)
        }
        #expect(throws: WebSocketViolation.self, "server_no_context_takeover asked, not granted") {
            try NegotiatedCompression.negotiate(
                response: ["permessage-deflate"], offer: WebSocketCompression(serverContextTakeover: false))
        }
        let noClientTakeover = try #require(try NegotiatedCompression.negotiate(
            response: ["permessage-deflate"], offer: WebSocketCompression(clientContextTakeover: false)))
        #expect(noClientTakeover.clientNoContextTakeover)
    }
}
