import Foundation

/// The permessage-deflate extension (RFC 7692) as Curlew offers it.
///
/// On by default in ``WebSocketOptions``; the server decides whether to use it. Inflated
/// messages are limited by ``WebSocketOptions/maximumMessageSize``, so a small compressed
/// message cannot grow into a large one in memory.
public struct WebSocketCompression: Sendable, Hashable {
    /// Whether Curlew keeps its compression context from one message to the next. False adds
    /// `client_no_context_takeover` to the offer: less memory and ratio per message.
    public var clientContextTakeover: Bool
    /// Whether the server may keep its context between messages. False asks for
    /// `server_no_context_takeover`; a server that does not agree fails the handshake.
    public var serverContextTakeover: Bool

    /// Compression with context takeover in both directions, the extension's default.
    public init(clientContextTakeover: Bool = true, serverContextTakeover: Bool = true) {
        self.clientContextTakeover = clientContextTakeover
        self.serverContextTakeover = serverContextTakeover
    }

    /// The extension name and parameters for `Sec-WebSocket-Extensions`. `client_max_window_bits`
    /// without a value tells the server it may ask Curlew for a smaller window.
    var offer: String {
        var offer = "permessage-deflate; client_max_window_bits"
        if !clientContextTakeover { offer += "; client_no_context_takeover" }
        if !serverContextTakeover { offer += "; server_no_context_takeover" }
        return offer
    }
}

/// What the server's `Sec-WebSocket-Extensions` agreed to (RFC 7692 §7).
struct NegotiatedCompression: Sendable, Equatable {
    /// Reset the compressor after each message sent.
    var clientNoContextTakeover = false
    /// The server resets its compressor after each message: so does the inflater.
    var serverNoContextTakeover = false
    /// The window the server allows Curlew's compressor (8–15).
    var clientMaxWindowBits = 15
    /// The server's window (8–15); inflating with 15 reads any.
    var serverMaxWindowBits = 15

    /// Reads the server's answer to `offer`; nil when it accepted no extension. Anything but one
    /// permessage-deflate with known, single, valid parameters that answers the offer is refused.
    static func negotiate(response values: [String], offer: WebSocketCompression?) throws(WebSocketViolation) -> NegotiatedCompression? {
        let extensions = values.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        guard !extensions.isEmpty else { return nil }
        guard let offer else {
            throw WebSocketViolation(
                .protocolError, "the server accepted the extension '\(extensions[0].prefix(80))', which Curlew did not offer")
        }
        guard extensions.count == 1 else {
            throw WebSocketViolation(.protocolError, "the server accepted \(extensions.count) extensions; Curlew offered one")
        }
        var parts = extensions[0].split(separator: ";", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        let name = parts.removeFirst()
        guard name.lowercased() == "permessage-deflate" else {
            throw WebSocketViolation(.protocolError, "the server accepted the extension '\(name.prefix(80))', which Curlew did not offer")
        }
        var result = NegotiatedCompression()
        var seen: Set<String> = []
        for part in parts {
            let pieces = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            let key = pieces.first?.lowercased() ?? ""
            var value = pieces.count > 1 ? pieces[1] : nil
            if let quoted = value, quoted.count >= 2, quoted.hasPrefix("\""), quoted.hasSuffix("\"") {
                value = String(quoted.dropFirst().dropLast())
            }
            guard seen.insert(key).inserted else {
                throw WebSocketViolation(.protocolError, "the server's permessage-deflate repeats the parameter \(key.prefix(40))")
            }
            switch key {
            case "server_no_context_takeover", "client_no_context_takeover":
                guard value == nil else {
                    throw WebSocketViolation(.protocolError, "the server gave \(key) a value; it takes none")
                }
                if key == "server_no_context_takeover" { result.serverNoContextTakeover = true } else { result.clientNoContextTakeover = true }
            case "server_max_window_bits", "client_max_window_bits":
                guard let value, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), value.count <= 2, let bits = Int(value),
                    (8...15).contains(bits)
                else {
                    throw WebSocketViolation(.protocolError, "the server's \(key) is not a window size from 8 to 15")
                }
                if key == "server_max_window_bits" { result.serverMaxWindowBits = bits } else { result.clientMaxWindowBits = bits }
            default:
                throw WebSocketViolation(.protocolError, "the server's permessage-deflate has the unknown parameter '\(key.prefix(40))'")
            }
        }
        if !offer.serverContextTakeover && !result.serverNoContextTakeover {
            throw WebSocketViolation(.protocolError, "the server did not accept server_no_context_takeover, which Curlew asked for")
        }
        if !offer.clientContextTakeover { result.clientNoContextTakeover = true }
        return result
    }

    /// The parameters for a response header, as the server wrote them (for printing).
    var description: String {
        var text = "permessage-deflate"
        if serverNoContextTakeover { text += "; server_no_context_takeover" }
        if clientNoContextTakeover { text += "; client_no_context_takeover" }
        if serverMaxWindowBits != 15 { text += "; server_max_window_bits=\(serverMaxWindowBits)" }
        if clientMaxWindowBits != 15 { text += "; client_max_window_bits=\(clientMaxWindowBits)" }
        return text
    }
}
