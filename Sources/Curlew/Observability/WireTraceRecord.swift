import Foundation

/// One record of a ``WireTrace``: what libcurl reported, secrets redacted.
public struct WireTraceRecord: Sendable, Hashable {
    /// What libcurl reported.
    public enum Kind: String, Sendable, Hashable {
        /// libcurl's informational text: connecting, reusing a connection, the TLS handshake.
        case text
        /// The request head as sent (request line and header fields).
        case requestHead
        /// A line of a response head as received.
        case responseHead
        /// Request body bytes sent.
        case requestBody
        /// Response body bytes received (as they came over the wire, before decompression).
        case responseBody
        /// TLS records sent (counted, never shown).
        case tlsOut
        /// TLS records received (counted, never shown).
        case tlsIn
    }

    /// What libcurl reported.
    public let kind: Kind
    /// The text of a text or head record, one line per line, without line ends; secrets
    /// redacted. Empty for body and TLS records.
    public let lines: [String]
    /// How many bytes libcurl reported.
    public let byteCount: Int
    /// The body bytes of a body record, when ``WireTrace/includesBodyBytes`` asks; nil otherwise,
    /// and always for TLS records.
    public let bodyBytes: Data?
}

extension WireTraceRecord: CustomStringConvertible {
    /// One line per line of text (`*` for libcurl's text, `>` sent, `<` received, as `curl -v`
    /// writes them), or a count for bytes.
    public var description: String {
        switch kind {
        case .text: return lines.map { "* " + $0 }.joined(separator: "\n")
        case .requestHead: return lines.map { "> " + $0 }.joined(separator: "\n")
        case .responseHead: return lines.map { "< " + $0 }.joined(separator: "\n")
        case .requestBody: return "> [\(byteCount) body bytes]"
        case .responseBody: return "< [\(byteCount) body bytes]"
        case .tlsOut: return "> [\(byteCount) TLS bytes]"
        case .tlsIn: return "< [\(byteCount) TLS bytes]"
        }
    }
}
