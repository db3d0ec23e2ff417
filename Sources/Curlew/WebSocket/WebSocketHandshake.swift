import CTLSShims
import Foundation
import HTTPTypes

/// The opening handshake of RFC 6455 §4: the request Curlew writes itself, and the checks of
/// the server's `101 Switching Protocols`.
struct WebSocketHandshake: Sendable {
    /// The `Sec-WebSocket-Key`: 16 random bytes, base64.
    let key: String
    /// The subprotocols offered, in order of preference.
    let protocols: [String]
    /// The permessage-deflate offer, if any.
    let compression: WebSocketCompression?

    /// What the server agreed to.
    struct Agreement: Sendable, Equatable {
        var subprotocol: String?
        var compression: NegotiatedCompression?
    }

    /// The fields Curlew writes for the handshake, which a caller's headers may not set.
    static let reservedFields: Set<String> = [
        "upgrade", "connection", "sec-websocket-key", "sec-websocket-version", "sec-websocket-extensions",
        "sec-websocket-protocol", "sec-websocket-accept", "host", "content-length", "transfer-encoding",
    ]

    private static let acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    init<Generator: RandomNumberGenerator>(protocols: [String], compression: WebSocketCompression?, using generator: inout Generator) {
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in bytes.indices { bytes[index] = generator.next() }
        key = Data(bytes).base64EncodedString()
        self.protocols = protocols
        self.compression = compression
    }

    init(key: String, protocols: [String], compression: WebSocketCompression?) {
        self.key = key
        self.protocols = protocols
        self.compression = compression
    }

    /// The `Sec-WebSocket-Accept` a server must answer `key` with (§4.2.2): base64 of the SHA-1
    /// of the key and the protocol's GUID.
    static func accept(for key: String) -> String {
        let input = Array((key + acceptGUID).utf8)
        var digest = [UInt8](repeating: 0, count: 20)
        curlew_sha1(input, input.count, &digest)
        return Data(digest).base64EncodedString()
    }

    /// Checks the caller's subprotocols (RFC 6455 §4.1: tokens, no repeats) and headers (none of
    /// the handshake's own).
    static func check(protocols: [String], headers: HTTPFields, url: URL) throws(CurlewError) {
        var seen: Set<String> = []
        for name in protocols {
            guard !name.isEmpty, name.utf8.allSatisfy(isTokenByte) else {
                throw CurlewError(.invalidRequest, "the subprotocol '\(name.prefix(60))' is not an HTTP token", url: url)
            }
            guard seen.insert(name).inserted else {
                throw CurlewError(.invalidRequest, "the subprotocol '\(name.prefix(60))' is offered twice", url: url)
            }
        }
        for field in headers where reservedFields.contains(field.name.canonicalName) {
            throw CurlewError(
                .invalidHeader, "the header \(field.name.rawName) is part of the WebSocket handshake, which Curlew writes itself",
                url: url)
        }
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
            UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// The request head for `url` (http or https, as libcurl connected to it), with `fields`
    /// (the caller's, the session's defaults and cookies) after the handshake's own.
    /// `host` overrides the `Host` value (a Unix socket's `localhost`).
    func requestHead(for url: URL, fields: HTTPFields, host: String? = nil) -> [UInt8] {
        var target = url.path(percentEncoded: true)
        if target.isEmpty { target = "/" }
        if let query = url.query(percentEncoded: true) { target += "?" + query }
        var text = "GET \(target) HTTP/1.1\r\n"
        text += "Host: \(host ?? Self.hostField(for: url))\r\n"
        text += "Upgrade: websocket\r\nConnection: Upgrade\r\n"
        text += "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        if !protocols.isEmpty { text += "Sec-WebSocket-Protocol: \(protocols.joined(separator: ", "))\r\n" }
        if let compression { text += "Sec-WebSocket-Extensions: \(compression.offer)\r\n" }
        var cookies: [String] = []
        for field in fields {
            if field.name == .cookie {
                cookies.append(field.value)
            } else {
                text += "\(field.name.rawName): \(field.value)\r\n"
            }
        }
        if !cookies.isEmpty { text += "Cookie: \(cookies.joined(separator: "; "))\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }

    /// `host[:port]`, the port only when it is not the scheme's default; IPv6 in brackets.
    static func hostField(for url: URL) -> String {
        var host = url.host(percentEncoded: true) ?? ""
        if host.contains(":"), !host.hasPrefix("[") { host = "[\(host)]" }
        let secure = url.scheme?.lowercased() == "https"
        if let port = url.port, port != (secure ? 443 : 80) { host += ":\(port)" }
        return host
    }

    /// Checks a response to the request (§4.1, the client's steps 1–6): `101`, `Upgrade:
    /// websocket`, `Connection: Upgrade`, the right `Sec-WebSocket-Accept`, a subprotocol only
    /// among those offered, and extensions only as offered. The status was checked by the caller.
    func validate(_ response: HTTPResponse) throws(WebSocketViolation) -> Agreement {
        let fields = response.headerFields
        guard let upgrade = fields[.upgrade], upgrade.trimmingCharacters(in: .whitespaces).lowercased() == "websocket" else {
            throw WebSocketViolation(.protocolError, "the server's 101 has no 'Upgrade: websocket' field")
        }
        let connection = fields[values: .connection].flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard connection.contains("upgrade") else {
            throw WebSocketViolation(.protocolError, "the server's 101 has no 'Connection: Upgrade' field")
        }
        let acceptName = HTTPField.Name("Sec-WebSocket-Accept")!
        let accepts = fields[values: acceptName]
        guard accepts.count == 1, accepts[0].trimmingCharacters(in: .whitespaces) == Self.accept(for: key) else {
            throw WebSocketViolation(
                .protocolError, accepts.isEmpty
                    ? "the server's 101 has no Sec-WebSocket-Accept field"
                    : "the server's Sec-WebSocket-Accept does not answer Curlew's key (it is not a WebSocket server for this request)")
        }
        var agreement = Agreement()
        let protocolName = HTTPField.Name("Sec-WebSocket-Protocol")!
        let chosen = fields[values: protocolName].flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if !chosen.isEmpty {
            guard chosen.count == 1, protocols.contains(chosen[0]) else {
                throw WebSocketViolation(
                    .protocolError, protocols.isEmpty
                        ? "the server chose the subprotocol '\(chosen[0].prefix(60))', but Curlew offered none"
                        : "the server chose '\(chosen.joined(separator: ", ").prefix(80))', which is not one subprotocol Curlew offered")
            }
            agreement.subprotocol = chosen[0]
        }
        let extensionsName = HTTPField.Name("Sec-WebSocket-Extensions")!
        agreement.compression = try NegotiatedCompression.negotiate(response: fields[values: extensionsName], offer: compression)
        return agreement
    }
}
